-- +goose Up
-- Durable jobs (internal/job): enqueued in the transaction of the change
-- that asks for them, claimed under a lease by any instance, retried with
-- backoff. run_at is on the service clock; tenant_id names the top-level
-- customer whose clock the job is due on ('' for system jobs).
CREATE TABLE jobs (
    id           TEXT PRIMARY KEY,            -- uuid v7
    kind         TEXT NOT NULL,
    args         TEXT NOT NULL,               -- JSON
    tenant_id    TEXT NOT NULL DEFAULT '',
    unique_key   TEXT,
    state        TEXT NOT NULL,               -- available, running, completed, failed, cancelled
    run_at       BIGINT NOT NULL,
    attempt      INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL,
    locked_until BIGINT,                      -- lease of the worker running it
    lease_id     TEXT,
    last_error   TEXT NOT NULL DEFAULT '',
    created_at   BIGINT NOT NULL,
    finished_at  BIGINT
);
-- What a claim reads: due jobs, and running ones whose lease ran out.
CREATE INDEX jobs_due ON jobs (run_at, id) WHERE state = 'available';
CREATE INDEX jobs_leased ON jobs (locked_until) WHERE state = 'running';
-- At most one waiting job per unique key (a timer is not set twice).
CREATE UNIQUE INDEX jobs_unique_available ON jobs (unique_key) WHERE state = 'available' AND unique_key IS NOT NULL;

-- +goose Down
DROP TABLE jobs;
