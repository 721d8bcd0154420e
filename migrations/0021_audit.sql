-- 0021_audit.sql - the audit log: who changed what, and who created each
-- study (docs/audit.md).
--
-- One row per write a user makes (study create, patch, delete; trial
-- enqueue, add, fail, patch; token create and revoke; table import;
-- simulation create and cancel), inserted in the same transaction as the
-- write it records, so a write and its event commit or roll back
-- together. token_id is the token that made the request (NULL: an open
-- server or the command line); its note is copied, never its secret or
-- hash. lab is the lab the target belongs to (NULL: a token of every lab,
-- a table without a namespace, a simulation run without a lab): a lab's
-- admin reads its lab's events only. study_id names the study a study or
-- trial event is about and is no foreign key: the events of a deleted
-- study stay. Rows older than HPOD_AUDIT_DAYS are deleted by the reaper.

CREATE TABLE audit_events (
    id         bigserial PRIMARY KEY,
    at         timestamptz NOT NULL DEFAULT now(),
    token_id   bigint REFERENCES tokens (id),
    token_note text,
    lab        text,
    action     text NOT NULL CHECK (action ~ '^[a-z]+\.[a-z]+$'),
    target     text NOT NULL,
    study_id   bigint,
    detail     json NOT NULL DEFAULT '{}'::json
);
CREATE INDEX audit_events_at ON audit_events (at);
CREATE INDEX audit_events_lab ON audit_events (lab, id);
CREATE INDEX audit_events_study ON audit_events (study_id, id)
    WHERE study_id IS NOT NULL;
CREATE INDEX audit_events_token ON audit_events (token_id, id)
    WHERE token_id IS NOT NULL;

-- The token that created a study (NULL: an open server, or a study older
-- than this migration).
ALTER TABLE studies ADD COLUMN created_by bigint REFERENCES tokens (id);
