-- 0002_benchmarks.sql - users' own lookup tables and stored simulation runs.
--
-- Imported tables live here, not in process memory, so every hpod process
-- on the database serves them. They are immutable once created (no update
-- path), which lets a process cache a parsed copy by name.

CREATE TABLE benchmarks (
    name       text PRIMARY KEY,
    definition jsonb NOT NULL,   -- params (with types, choices), metrics
    rows       jsonb NOT NULL,   -- array of row objects, row id = position
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE simulations (
    id         bigserial PRIMARY KEY,
    benchmark  text NOT NULL,
    summary    jsonb NOT NULL,   -- request (normalized) and metrics
    sequences  jsonb NOT NULL,   -- array of arrays of 0-based row ids
    seconds    double precision NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX simulations_benchmark ON simulations (benchmark, id);
