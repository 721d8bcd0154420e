-- 0022_report_read_version.sql - a final report's read (migration 0020's
-- hpod_report_read) sends the study's definition only when the reader's
-- parsed copy is of another version.
--
-- A server keeps one parsed definition per study version (study/defcache,
-- docs/ARCHITECTURE.md "study"). The read takes the study and version the
-- reader holds (p_known_study, p_known; 0 and '' for none), answers the
-- study row's version as def_version (the xmin of the row and the stored
-- size of its definition, store/study_store.h STUDY_SQL_VERSION) and the
-- definition's text only when that version is not the one held, NULL
-- otherwise: a report on a big study no longer ships its definition on
-- every call.
--
-- The one-argument hpod_report_read of 0020 stays, for a server of the
-- previous release still running while this one migrates. Written to
-- apply once or again: the three-argument function is dropped if it
-- exists and created again.
DROP FUNCTION IF EXISTS hpod_report_read(bigint, bigint, text);

CREATE FUNCTION hpod_report_read(p_id bigint, p_known_study bigint,
                                 p_known text)
RETURNS TABLE (
    id bigint, study_id bigint, seq integer, state text, params text,
    origin text, metadata text, candidate integer, worker text, reason text,
    lease_expired boolean, lease_expires_at text, resume_from_step integer,
    train_to integer, created_at text, updated_at text, version text,
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
