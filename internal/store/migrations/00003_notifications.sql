-- +goose Up
-- The notification outbox: a row is written in the same transaction as the
-- state change that causes it, and delivered at least once by the dispatcher.

CREATE TABLE notifications (
    id              TEXT PRIMARY KEY,         -- uuid v7; X-Service-Notification-Id
    customer_id     TEXT NOT NULL REFERENCES customers (id),
    application_id  TEXT NOT NULL REFERENCES applications (id),
    payment_id      TEXT NOT NULL DEFAULT '', -- plain text: no foreign key to payments
    ordering_key    TEXT NOT NULL,            -- payment_id, or id when there is none
    seq             BIGINT NOT NULL,          -- position within ordering_key
    type            TEXT NOT NULL DEFAULT '', -- X-Service-Type; empty for gateway
    url             TEXT NOT NULL DEFAULT '', -- override of the application's URL
    body            TEXT NOT NULL,            -- compact JSON, the signed bytes
    status          TEXT NOT NULL,            -- PENDING, DELIVERED, FAILED
    attempts        INTEGER NOT NULL DEFAULT 0,
    retry_from      INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    locked_until    BIGINT,                   -- lease of the worker delivering it
    lease_id        TEXT,
    created_at      BIGINT NOT NULL,
    delivered_at    BIGINT,
    last_error      TEXT NOT NULL DEFAULT '',
    UNIQUE (ordering_key, seq)
);
CREATE INDEX notifications_due ON notifications (next_attempt_at, id) WHERE status = 'PENDING';
CREATE INDEX notifications_customer ON notifications (customer_id, created_at);
CREATE INDEX notifications_payment ON notifications (payment_id);
CREATE INDEX notifications_application ON notifications (application_id, status);

-- Every delivery attempt, whatever its outcome.
CREATE TABLE notification_attempts (
    id              TEXT PRIMARY KEY,
    notification_id TEXT NOT NULL REFERENCES notifications (id),
    number          INTEGER NOT NULL,
    started_at      BIGINT NOT NULL,
    url             TEXT NOT NULL,
    request_headers TEXT NOT NULL,            -- JSON object
    request_body    TEXT NOT NULL,
    response_status INTEGER NOT NULL DEFAULT 0,
    response_body   TEXT NOT NULL DEFAULT '',
    latency_us      BIGINT NOT NULL,
    error           TEXT NOT NULL DEFAULT '',
    success         INTEGER NOT NULL
);
CREATE INDEX notification_attempts_notification ON notification_attempts (notification_id, started_at);

-- Delivery health per application: consecutive failures and the pause,
-- shared by every instance.
CREATE TABLE notification_endpoints (
    application_id       TEXT PRIMARY KEY REFERENCES applications (id),
    consecutive_failures INTEGER NOT NULL DEFAULT 0,
    paused_at            BIGINT,
    updated_at           BIGINT NOT NULL
);

-- +goose Down
DROP TABLE notification_endpoints;
DROP TABLE notification_attempts;
DROP TABLE notifications;
