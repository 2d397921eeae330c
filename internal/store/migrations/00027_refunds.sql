-- +goose Up
-- Refunds of Connect payments (internal/refund). refund_totals keeps what
-- each payment has refunded (pending and confirmed refunds), moved by a
-- conditional upsert that never passes the payment's amount, so that
-- concurrent refunds of one payment cannot refund more than it.
CREATE TABLE refunds (
    id                 TEXT PRIMARY KEY,
    payment_id         TEXT NOT NULL REFERENCES payments (id),
    account_id         TEXT NOT NULL REFERENCES ledger_accounts (id),
    customer_id        TEXT NOT NULL,
    client_id          TEXT NOT NULL,
    notification_url   TEXT NOT NULL DEFAULT '',
    amount             BIGINT NOT NULL CHECK (amount > 0),
    currency           TEXT NOT NULL,
    external_reference TEXT NOT NULL,
    status             TEXT NOT NULL,
    transaction_id     TEXT NOT NULL REFERENCES ledger_transactions (id),
    created_at         BIGINT NOT NULL,
    updated_at         BIGINT NOT NULL
);
CREATE INDEX refunds_payment ON refunds (payment_id, created_at, id);

CREATE TABLE refund_totals (
    payment_id TEXT PRIMARY KEY REFERENCES payments (id),
    refunded   BIGINT NOT NULL CHECK (refunded >= 0)
);

-- +goose Down
DROP TABLE refund_totals;
DROP TABLE refunds;
