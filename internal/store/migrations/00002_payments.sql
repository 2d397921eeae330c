-- +goose Up
-- Global API payments. Filterable fields are columns; the accepted request,
-- the status history and the sender are JSON text (read whole, never queried).
CREATE TABLE payments (
    id                 TEXT PRIMARY KEY,
    customer_id        TEXT NOT NULL REFERENCES customers (id),
    client_id          TEXT NOT NULL,           -- the application (OAuth client) that created it
    user_id            TEXT NOT NULL,
    channel            TEXT NOT NULL,           -- hosted | api
    payment_system     TEXT NOT NULL,
    status             TEXT NOT NULL,
    currency           TEXT NOT NULL,
    amount             BIGINT NOT NULL,
    internal_reference TEXT NOT NULL DEFAULT '',
    payment_reference  TEXT NOT NULL DEFAULT '',
    unique_reference   TEXT NOT NULL,
    institution_id     TEXT NOT NULL DEFAULT '',
    short_code         TEXT NOT NULL UNIQUE,    -- of the short link /c/{code}
    checkout_token     TEXT NOT NULL,
    request            TEXT NOT NULL,           -- JSON: the accepted, normalised request
    status_history     TEXT NOT NULL,           -- JSON: [{newStatus, createdAt}], oldest first
    sender             TEXT,                    -- JSON: the paying account, once the bank reports it
    created_at         BIGINT NOT NULL,
    updated_at         BIGINT NOT NULL
);
-- Lists are per customer, newest first, with id as the tie-breaker.
CREATE INDEX payments_customer_created ON payments (customer_id, created_at DESC, id DESC);
CREATE INDEX payments_customer_internal_ref ON payments (customer_id, internal_reference);
CREATE INDEX payments_customer_payment_ref ON payments (customer_id, payment_reference);

-- Idempotency keys, unique per customer, so that every instance sharing the
-- database agrees. A key is pending (done = 0) while its request runs, under
-- a lease (locked_until) held with a random token; then it keeps the response
-- until expires_at.
CREATE TABLE idempotency_keys (
    customer_id     TEXT NOT NULL REFERENCES customers (id),
    idem_key        TEXT NOT NULL,
    request_hash    TEXT NOT NULL,
    token           TEXT NOT NULL,
    done            INTEGER NOT NULL DEFAULT 0,
    response_status INTEGER,
    response_body   TEXT,
    resource_id     TEXT,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    locked_until    BIGINT,
    PRIMARY KEY (customer_id, idem_key)
);
CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at);

-- +goose Down
DROP TABLE idempotency_keys;
DROP TABLE payments;
