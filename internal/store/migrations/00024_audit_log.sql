-- +goose Up
-- The audit log (internal/audit): every sign-in, failed ones too, and every
-- change made through the API, written in the transaction of the change.
-- Ids, action names and addresses only: never a secret.
CREATE TABLE audit_log (
    id            TEXT PRIMARY KEY,            -- uuid v7 (time ordered)
    occurred_at   BIGINT NOT NULL,
    customer_id   TEXT NOT NULL DEFAULT '',    -- whose log it is in; '' when unknown (unknown client)
    actor_type    TEXT NOT NULL,               -- USER, API_CLIENT
    actor_id      TEXT NOT NULL DEFAULT '',
    action        TEXT NOT NULL,               -- "POST /payments", oauth.sign_in, ...
    resource_type TEXT NOT NULL DEFAULT '',
    resource_id   TEXT NOT NULL DEFAULT '',
    request_id    TEXT NOT NULL DEFAULT '',
    ip            TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_customer_time ON audit_log (customer_id, occurred_at);

-- +goose Down
DROP TABLE audit_log;
