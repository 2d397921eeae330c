-- +goose Up
-- The web console's known devices (issue 28, item 3): a browser where a
-- user signed in holds a random id in a long-lived cookie; only its SHA-256
-- is kept here. A sign-in from a user's known device is throttled on that
-- device alone, so that failures a stranger causes elsewhere never lock the
-- user out of it. Times are on the service clock (Unix microseconds).
CREATE TABLE console_devices (
    id_hash    TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX console_devices_expires ON console_devices (expires_at);

-- +goose Down
DROP TABLE console_devices;
