-- +goose Up
-- Sessions of the web console (internal/dashboard): a signed-in person.
-- The browser's cookie holds a random id; only its SHA-256 is kept here, so
-- a copy of this table signs nobody in. csrf_token is the synchronizer
-- token of the session's forms. Times are on the service clock (Unix
-- microseconds): a session ends expires_at at the latest, or once it was
-- not seen for the console's idle time.
CREATE TABLE dashboard_sessions (
    id_hash          TEXT PRIMARY KEY,
    user_id          TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_generation BIGINT NOT NULL,
    csrf_token       TEXT NOT NULL,
    created_at       BIGINT NOT NULL,
    seen_at          BIGINT NOT NULL,
    expires_at       BIGINT NOT NULL
);
CREATE INDEX dashboard_sessions_user ON dashboard_sessions (user_id);
CREATE INDEX dashboard_sessions_expires ON dashboard_sessions (expires_at);

-- +goose Down
DROP TABLE dashboard_sessions;
