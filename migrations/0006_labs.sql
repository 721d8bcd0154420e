-- 0006_labs.sql - a shared lab server: labs, tokens, study state and
-- metadata, enqueued and added trials.
--
-- A lab is a namespace ("mt"): it owns studies (studies.lab), the
-- tables imported under its name ("mt/x": the part before the slash, so
-- benchmarks need no column of their own) and the simulations its
-- members ran (simulations.lab; NULL: run with a token of every lab or on
-- an open server, seen only by such tokens). (lab, name) is unique, so two machines find "their" study by name. Studies created
-- before labs existed go to the lab "default"; if two of them had the
-- same name, every one but the oldest gets " (id N)" appended, because
-- the unique index cannot be built otherwise (the rename is the only
-- change made to existing rows).
--
-- Tokens are random 256-bit secrets; only their SHA-256 is stored
-- (docs/ARCHITECTURE.md, "Tokens"). lab NULL: every lab. A token is never
-- deleted, only revoked (revoked_at), so "tokens exist" never turns back
-- into "the server is open" when the last one is revoked.
--
-- Trials gain the state "waiting" (enqueued by a user, issued by the next
-- suggest before any new configuration; no lease, no worker yet), an
-- origin (suggested by hpod, enqueued by a user, or added with values
-- obtained elsewhere: an added trial enters the model but costs no
-- budget) and free-form metadata. Studies gain a state (active, paused,
-- finished) and metadata.

ALTER TABLE studies
    ADD COLUMN lab text NOT NULL DEFAULT 'default'
        CHECK (lab ~ '^[A-Za-z0-9_.-]{1,64}$'),
    ADD COLUMN state text NOT NULL DEFAULT 'active'
        CHECK (state IN ('active', 'paused', 'finished')),
    ADD COLUMN metadata json NOT NULL DEFAULT '{}'::json;

UPDATE studies s
   SET name = left(s.name, 180) || ' (id ' || s.id || ')'
 WHERE EXISTS (SELECT 1 FROM studies o
                WHERE o.lab = s.lab AND o.name = s.name AND o.id < s.id);

CREATE UNIQUE INDEX studies_lab_name ON studies (lab, name);

ALTER TABLE trials DROP CONSTRAINT trials_state_check;
ALTER TABLE trials
    ADD CONSTRAINT trials_state_check CHECK (state IN
        ('waiting', 'pending', 'running', 'completed', 'failed', 'pruned',
         'paused')),
    ADD COLUMN origin text NOT NULL DEFAULT 'suggested'
        CHECK (origin IN ('suggested', 'enqueued', 'added')),
    ADD COLUMN metadata json NOT NULL DEFAULT '{}'::json;
CREATE INDEX trials_waiting ON trials (study_id, seq) WHERE state = 'waiting';

ALTER TABLE simulations
    ADD COLUMN lab text CHECK (lab ~ '^[A-Za-z0-9_.-]{1,64}$');

CREATE TABLE tokens (
    id         bigserial PRIMARY KEY,
    hash       bytea NOT NULL UNIQUE CHECK (length(hash) = 32),
    role       text NOT NULL CHECK (role IN ('admin', 'write', 'read')),
    lab        text CHECK (lab ~ '^[A-Za-z0-9_.-]{1,64}$'),
    note       text NOT NULL DEFAULT '' CHECK (length(note) <= 200),
    expires_at timestamptz,
    revoked_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);
