-- 0005_json_text.sql - the JSON hpod writes is stored as it was written.
--
-- jsonb normalizes numbers: a study with a constraint bound of 1e19 was
-- stored as 10000000000000000000, which jansson then refuses to read back
-- ("too big integer"), so the study was accepted and answered 500 on every
-- suggest and pareto. json keeps the text exactly as handlers/json_text.c
-- wrote it: every real in its shortest round-trip form, always with a '.'
-- or an exponent, so it reads back as the same double. No SQL looks inside
-- these columns (a study's candidates are split with json_array_elements,
-- which keeps each element's text), so nothing needs jsonb here.
--
-- Metric values (trials.values, intermediate_values.values) are not
-- touched here: 0004 gives them their own types. Rows written before this
-- migration keep the text jsonb made of them.

ALTER TABLE studies
    ALTER COLUMN definition TYPE json USING definition::json;
ALTER TABLE candidates
    ALTER COLUMN params TYPE json USING params::json;
ALTER TABLE trials
    ALTER COLUMN params TYPE json USING params::json;
ALTER TABLE benchmarks
    ALTER COLUMN definition TYPE json USING definition::json,
    ALTER COLUMN rows TYPE json USING rows::json;
ALTER TABLE simulations
    ALTER COLUMN summary TYPE json USING summary::json,
    ALTER COLUMN sequences TYPE json USING sequences::json;
