-- +goose Up
-- A job whose lease keeps running out (its handler crashes the instance or
-- hangs past every heartbeat) is tried again only so often: lease_expiries
-- counts the claims that found its lease run out, and after the worker's
-- cap it is 'dead' (internal/job): never claimed again, kept for operators
-- (never purged), counted by kind in bankrail_jobs_dead.
ALTER TABLE jobs ADD COLUMN lease_expiries INTEGER NOT NULL DEFAULT 0;
CREATE INDEX jobs_dead ON jobs (kind) WHERE state = 'dead';

-- +goose Down
DROP INDEX jobs_dead;
ALTER TABLE jobs DROP COLUMN lease_expiries;
