-- +goose Up
-- The sandbox's built-in notification receiver (internal/inbox): what
-- arrived at an application's inbox URL, the last 1,000 per application.
CREATE TABLE sandbox_inbox (
    id              TEXT PRIMARY KEY,          -- uuid v7
    customer_id     TEXT NOT NULL REFERENCES customers (id),
    application_id  TEXT NOT NULL REFERENCES applications (id),
    notification_id TEXT NOT NULL DEFAULT '',  -- X-Service-Notification-Id as received
    type            TEXT NOT NULL DEFAULT '',  -- X-Service-Type as received
    received_at     BIGINT NOT NULL,           -- service clock
    headers         TEXT NOT NULL,             -- JSON object
    body            TEXT NOT NULL,             -- exactly as received
    signature_valid INTEGER NOT NULL,
    error           TEXT NOT NULL DEFAULT ''
);
CREATE INDEX sandbox_inbox_customer ON sandbox_inbox (customer_id, received_at);
CREATE INDEX sandbox_inbox_application ON sandbox_inbox (application_id, received_at);

-- +goose Down
DROP TABLE sandbox_inbox;
