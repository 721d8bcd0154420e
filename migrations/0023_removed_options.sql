-- 0023_removed_options.sql - stored studies that use a removed option
-- continue with what replaced it.
--
-- The product no longer has three algorithm options (no case of auto used
-- them, and they lost where they were measured; docs/auto.md, "What no
-- case would use"): gp "hedge_judge": "observed" (replaced by the GP
-- judge, the default), ehvi "gp_blend": "all" (replaced by "first") and
-- ehvi "log_objectives": true (off). A request that sends them answers 422,
-- and the one parser that reads new and stored definitions alike
-- (docs/ARCHITECTURE.md, study/) would refuse a stored definition that
-- still holds them, so such a study could no longer be read or suggest.
-- This rewrites them, in the algorithm and in auto's recorded choice
-- (algorithm.chosen), to their replacements: "hedge_judge": "observed" is
-- dropped, "gp_blend": "all" becomes "first", and "log_objectives" is
-- dropped whether true or false. hpod wrote "log_objectives": false into
-- every ehvi definition and no longer writes it; load_if_exists compares
-- the stored definition with the new one, so a study that kept it would
-- answer 409 to the same definition sent again. asha and multistage name
-- their base sampler by a string and nest no algorithm.
--
-- Definitions are json, stored as hpod wrote them (0005): only the rows
-- that hold a removed option change, and in them only the algorithm
-- object (and its chosen object) is rebuilt, member by member, every
-- other member keeping its exact text and its place. Simulations keep
-- their stored request and summary: they record what ran.
--
-- hpod migrate applies this file in one transaction; run again, it
-- changes nothing (no row holds a removed option any more).

-- a (an algorithm object) without its removed members, gp_blend "all"
-- as "first", and its chosen member replaced by the text chosen when that
-- is not null; every other member keeps its text and its order.
CREATE OR REPLACE FUNCTION pg_temp.hpod_0023_algo(a json, chosen text)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT '{' || coalesce(string_agg(
               to_json(e.key)::text || ': ' ||
               CASE WHEN e.key = 'gp_blend' AND json_typeof(e.value) = 'string'
                         AND e.value #>> '{}' = 'all' THEN '"first"'
                    WHEN e.key = 'chosen' AND chosen IS NOT NULL THEN chosen
                    ELSE e.value::text END,
               ', ' ORDER BY e.n), '') || '}'
      FROM json_each(a) WITH ORDINALITY AS e(key, value, n)
     WHERE e.key <> 'log_objectives'
       AND NOT (e.key = 'hedge_judge' AND json_typeof(e.value) = 'string'
                AND e.value #>> '{}' = 'observed')
$$;

-- Whether the algorithm object a holds a removed option.
CREATE OR REPLACE FUNCTION pg_temp.hpod_0023_removed(a json)
RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(json_typeof(a) = 'object'
                    AND (a ->> 'hedge_judge' = 'observed'
                         OR a ->> 'gp_blend' = 'all'
                         OR a -> 'log_objectives' IS NOT NULL), false)
$$;

-- The definition d with its algorithm (and the algorithm's chosen)
-- rewritten; every other member as it was.
CREATE OR REPLACE FUNCTION pg_temp.hpod_0023_def(d json)
RETURNS json LANGUAGE sql IMMUTABLE AS $$
    SELECT ('{' || string_agg(
               to_json(e.key)::text || ': ' ||
               CASE WHEN e.key = 'algorithm' AND json_typeof(e.value) = 'object'
                    THEN pg_temp.hpod_0023_algo(
                             e.value,
                             CASE WHEN json_typeof(e.value -> 'chosen') = 'object'
                                  THEN pg_temp.hpod_0023_algo(e.value -> 'chosen', NULL)
                             END)
                    ELSE e.value::text END,
               ', ' ORDER BY e.n) || '}')::json
      FROM json_each(d) WITH ORDINALITY AS e(key, value, n)
$$;

UPDATE studies
   SET definition = pg_temp.hpod_0023_def(definition)
 WHERE json_typeof(definition) = 'object'
   AND (pg_temp.hpod_0023_removed(definition -> 'algorithm')
        OR pg_temp.hpod_0023_removed(definition -> 'algorithm' -> 'chosen'));

DROP FUNCTION pg_temp.hpod_0023_def(json);
DROP FUNCTION pg_temp.hpod_0023_removed(json);
DROP FUNCTION pg_temp.hpod_0023_algo(json, text);
