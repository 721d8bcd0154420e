-- 0031_exclusions.sql - trials a user took out of the model
-- (POST /v1/trials/{id}/exclude and /restore; docs/trainer.md,
-- "Excluded trials").
--
-- An excluded trial keeps its state and values but leaves the model (the
-- history suggest builds), best, pareto and importance. excluded_at is
-- set while it is excluded, with the reason and who did it (the token's
-- id and note, "" on an open server); restore clears all three. The
-- update stamps changed_xid (migration 0010's trigger), so every cache
-- checked against it (the history cache, the importance fit's version)
-- sees the change on every process.
--
-- The report functions of migrations 0020 and 0022 return
-- store/trial_cols.h's columns, so they are replaced to return these too:
-- a trial read by the report path shows its exclusion like any other read.

ALTER TABLE trials
    ADD COLUMN excluded_at timestamptz,
    ADD COLUMN excluded_reason text,
    ADD COLUMN excluded_by text,
    ADD CONSTRAINT trials_excluded_whole CHECK (
        (excluded_at IS NULL) = (excluded_reason IS NULL)
        AND (excluded_at IS NULL) = (excluded_by IS NULL));

DROP FUNCTION hpod_report_read(bigint);
DROP FUNCTION hpod_report_read(bigint, bigint, text);
DROP FUNCTION hpod_report_write(bigint, boolean, integer, text[],
                                double precision[], xid8);

CREATE FUNCTION hpod_report_read(p_id bigint)
RETURNS TABLE (
    id bigint, study_id bigint, seq integer, state text, params text,
    origin text, metadata text, candidate integer, worker text, reason text,
    lease_expired boolean, lease_expires_at text, resume_from_step integer,
    train_to integer, created_at text, updated_at text,
    excluded_reason text, excluded_by text, excluded_at text, version text,
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
        t.excluded_reason, t.excluded_by,
        to_char(t.excluded_at AT TIME ZONE 'UTC',
                'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        t.changed_xid::text, s.definition::text, s.lease_seconds,
        EXISTS (SELECT 1 FROM intermediate_values i WHERE i.trial_id = t.id),
        v.metric, v.value
    FROM trials t JOIN studies s ON s.id = t.study_id
    LEFT JOIN trial_values v ON v.trial_id = t.id
    WHERE t.id = p_id ORDER BY v.metric;
END
$$;

CREATE FUNCTION hpod_report_read(p_id bigint, p_known_study bigint,
                                 p_known text)
RETURNS TABLE (
    id bigint, study_id bigint, seq integer, state text, params text,
    origin text, metadata text, candidate integer, worker text, reason text,
    lease_expired boolean, lease_expires_at text, resume_from_step integer,
    train_to integer, created_at text, updated_at text,
    excluded_reason text, excluded_by text, excluded_at text, version text,
    def_version text, definition text, lease_seconds integer,
    has_steps boolean, v_metric text, v_value double precision)
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
        t.excluded_reason, t.excluded_by,
        to_char(t.excluded_at AT TIME ZONE 'UTC',
                'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        t.changed_xid::text, sv.v,
        CASE WHEN s.id = p_known_study AND sv.v = p_known THEN NULL
            ELSE s.definition::text END,
        s.lease_seconds,
        EXISTS (SELECT 1 FROM intermediate_values i WHERE i.trial_id = t.id),
        v.metric, v.value
    FROM trials t JOIN studies s ON s.id = t.study_id
    CROSS JOIN LATERAL (SELECT s.xmin::text || ':'
                               || pg_column_size(s.definition) AS v) sv
    LEFT JOIN trial_values v ON v.trial_id = t.id
    WHERE t.id = p_id ORDER BY v.metric;
END
$$;

CREATE FUNCTION hpod_report_write(p_id bigint, p_complete boolean,
                                  p_lease_seconds integer, p_metrics text[],
                                  p_values double precision[], p_version xid8)
RETURNS TABLE (
    id bigint, study_id bigint, seq integer, state text, params text,
    origin text, metadata text, candidate integer, worker text, reason text,
    lease_expired boolean, lease_expires_at text, resume_from_step integer,
    train_to integer, created_at text, updated_at text,
    excluded_reason text, excluded_by text, excluded_at text)
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
                'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        u.excluded_reason, u.excluded_by,
        to_char(u.excluded_at AT TIME ZONE 'UTC',
                'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
    FROM u;
END
$$;
