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
-- touched here: 0004 gives them their own types.
--
-- Rows written before this migration keep jsonb's text, repaired where
-- jsonb broke it: an integer beyond the 64-bit range cannot have come
-- from a client (jansson refuses to parse one), so it was a real such as
-- 1e19 that jsonb printed without its exponent; it gets ".0" back, which
-- jansson reads as the same double. Everything else is kept as it is.

CREATE FUNCTION pg_temp.hpod_0005_reals(j jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    t text := j::text;
BEGIN
    CASE jsonb_typeof(j)
    WHEN 'object' THEN
        RETURN '{' || coalesce((
            SELECT string_agg(to_json(e.key)::text || ': ' ||
                              pg_temp.hpod_0005_reals(e.value), ', ' ORDER BY e.n)
            FROM jsonb_each(j) WITH ORDINALITY AS e(key, value, n)), '') || '}';
    WHEN 'array' THEN
        RETURN '[' || coalesce((
            SELECT string_agg(pg_temp.hpod_0005_reals(e.value), ', ' ORDER BY e.n)
            FROM jsonb_array_elements(j) WITH ORDINALITY AS e(value, n)), '') || ']';
    WHEN 'number' THEN
        IF t ~ '^-?[0-9]+$' AND
           NOT t::numeric BETWEEN -9223372036854775808 AND 9223372036854775807 THEN
            RETURN t || '.0';
        END IF;
        RETURN t;
    ELSE
        RETURN t;
    END CASE;
END
$$;

-- Only text with a run of 19 digits can hold such an integer; the rest is
-- converted as it is.
CREATE FUNCTION pg_temp.hpod_0005_json(j jsonb) RETURNS json
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN j::text ~ '[0-9]{19}'
                THEN pg_temp.hpod_0005_reals(j)::json ELSE j::json END
$$;

ALTER TABLE studies
    ALTER COLUMN definition TYPE json USING pg_temp.hpod_0005_json(definition);
ALTER TABLE candidates
    ALTER COLUMN params TYPE json USING pg_temp.hpod_0005_json(params);
ALTER TABLE trials
    ALTER COLUMN params TYPE json USING pg_temp.hpod_0005_json(params);
ALTER TABLE benchmarks
    ALTER COLUMN definition TYPE json USING pg_temp.hpod_0005_json(definition),
    ALTER COLUMN rows TYPE json USING pg_temp.hpod_0005_json(rows);
ALTER TABLE simulations
    ALTER COLUMN summary TYPE json USING pg_temp.hpod_0005_json(summary),
    ALTER COLUMN sequences TYPE json USING pg_temp.hpod_0005_json(sequences);

DROP FUNCTION pg_temp.hpod_0005_json(jsonb);
DROP FUNCTION pg_temp.hpod_0005_reals(jsonb);
