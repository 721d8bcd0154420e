-- 0020_report_functions.sql - a final report's read and its conditional
-- write (store/report_store.c) as PL/pgSQL functions, so that PostgreSQL
-- plans them once per server connection without hpod keeping any state on
-- the session.
--
-- hpod sends unnamed statements only, so that it works through PgBouncer
-- in transaction mode (docs/DEPLOY.md, "PgBouncer"). An unnamed statement
-- is parsed, analysed and planned every time it runs: for these two, the
-- two statements of nearly every suggest+report cycle, that was most of
-- PostgreSQL's work per cycle (docs/DEPLOY.md, "The gap to the engine").
-- PL/pgSQL keeps the plans of the statements inside a function for the
-- life of the server process, whichever client calls it, and the call
-- itself is a trivial statement to plan.
--
-- The columns are those of store/trial_cols.h (TRIAL_COLS) and the report
-- read's; a migration that changes them changes these functions too.

CREATE FUNCTION hpod_report_read(p_id bigint)
RETURNS TABLE (
    id bigint, study_id bigint, seq integer, state text, params text,
    origin text, metadata text, candidate integer, worker text, reason text,
    lease_expired boolean, lease_expires_at text, resume_from_step integer,
    train_to integer, created_at text, updated_at text, version text,
    definition text, lease_seconds integer, has_steps boolean,
    v_metric text, v_value double precision)
LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    SELECT t.id, t.study_id, t.seq, t.state, t.params::text, t.origin,
        t.metadata::text, t.candidate, t.worker, t.reason, t.lease_expired,
        to_char(t.lease_expires_at AT TIME ZONE 'UTC',
                'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        t.resume_from_step, t.train_to,
        to_char(t.created_at AT TIME ZONE 'UTC',
                'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        to_char(t.updated_at AT TIME ZONE 'UTC',
                'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        t.changed_xid::text, s.definition::text, s.lease_seconds,
        EXISTS (SELECT 1 FROM intermediate_values i WHERE i.trial_id = t.id),
        v.metric, v.value
    FROM trials t JOIN studies s ON s.id = t.study_id
    LEFT JOIN trial_values v ON v.trial_id = t.id
    WHERE t.id = p_id ORDER BY v.metric;
END
$$;

-- The write happens only if the trial's changed_xid is still p_version
-- (what the read saw); the values are inserted only when the UPDATE
-- matched (they select from its rows). No row: another writer came first.
CREATE FUNCTION hpod_report_write(p_id bigint, p_complete boolean,
                                  p_lease_seconds integer, p_metrics text[],
                                  p_values double precision[], p_version xid8)
RETURNS TABLE (
    id bigint, study_id bigint, seq integer, state text, params text,
    origin text, metadata text, candidate integer, worker text, reason text,
    lease_expired boolean, lease_expires_at text, resume_from_step integer,
    train_to integer, created_at text, updated_at text)
LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH u AS (
        UPDATE trials AS t SET
            state = CASE WHEN p_complete THEN 'completed' ELSE 'running' END,
            lease_expires_at = CASE WHEN p_complete THEN NULL
                ELSE now() + make_interval(secs => p_lease_seconds) END,
            updated_at = now()
        WHERE t.id = p_id AND t.changed_xid = p_version
        RETURNING t.*),
    v AS (
        INSERT INTO trial_values (trial_id, metric, value)
        SELECT u.id, m.m, m.v FROM u, unnest(p_metrics, p_values) AS m (m, v))
    SELECT u.id, u.study_id, u.seq, u.state, u.params::text, u.origin,
        u.metadata::text, u.candidate, u.worker, u.reason, u.lease_expired,
        to_char(u.lease_expires_at AT TIME ZONE 'UTC',
                'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        u.resume_from_step, u.train_to,
        to_char(u.created_at AT TIME ZONE 'UTC',
                'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        to_char(u.updated_at AT TIME ZONE 'UTC',
                'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
    FROM u;
END
$$;
