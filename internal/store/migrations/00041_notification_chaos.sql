-- +goose Up
-- Webhook chaos of the sandbox (issue 17): per application, how delivery
-- misbehaves on purpose. No row: delivery behaves normally.
CREATE TABLE notification_chaos (
    application_id                   TEXT PRIMARY KEY REFERENCES applications (id),
    duplicate_percent                INTEGER NOT NULL DEFAULT 0,
    delay_percent                    INTEGER NOT NULL DEFAULT 0,
    delay_seconds                    BIGINT NOT NULL DEFAULT 0,
    reorder_percent                  INTEGER NOT NULL DEFAULT 0,
    completed_after_received_percent INTEGER NOT NULL DEFAULT 0,
    seed                             BIGINT NOT NULL DEFAULT 0,
    updated_at                       BIGINT NOT NULL
);
-- What chaos did to a notification (comma-separated: delayed, reordered,
-- completedAfterReceived) and the hold it is under until released
-- ('' = none, reorder, completedAfterReceived).
ALTER TABLE notifications ADD COLUMN chaos TEXT NOT NULL DEFAULT '';
ALTER TABLE notifications ADD COLUMN chaos_hold TEXT NOT NULL DEFAULT '';
-- An attempt made by chaos (duplicate).
ALTER TABLE notification_attempts ADD COLUMN chaos TEXT NOT NULL DEFAULT '';
-- Secret rotation: the previous notification secret still signs (a second
-- signature) until previous_secret_until, on the tenant's clock.
ALTER TABLE notification_endpoints ADD COLUMN previous_secret TEXT NOT NULL DEFAULT '';
ALTER TABLE notification_endpoints ADD COLUMN previous_secret_until BIGINT;

-- The sandbox's seed state, taken once right after the first start seeded
-- the database: POST /sandbox/reset restores it (internal/sandbox).
CREATE TABLE sandbox_baseline (
    id             INTEGER PRIMARY KEY CHECK (id = 1),
    schema_version BIGINT NOT NULL,
    taken_at       BIGINT NOT NULL,
    data           TEXT NOT NULL
);

-- +goose Down
DROP TABLE sandbox_baseline;
ALTER TABLE notification_endpoints DROP COLUMN previous_secret_until;
ALTER TABLE notification_endpoints DROP COLUMN previous_secret;
ALTER TABLE notification_attempts DROP COLUMN chaos;
ALTER TABLE notifications DROP COLUMN chaos_hold;
ALTER TABLE notifications DROP COLUMN chaos;
DROP TABLE notification_chaos;
