-- +goose Up
-- SETTLEMENT payouts (internal/payout): a completed SETTLEMENT payout moves
-- its account's RECEIVED payments to SETTLED, oldest first, as far as its
-- amount covers them. Each settled payment is linked to the payout that
-- settled it; the primary key makes a payment settled once.
CREATE TABLE payout_settlements (
    payment_id  TEXT PRIMARY KEY REFERENCES payments (id),
    payout_id   TEXT NOT NULL REFERENCES payouts (id),
    amount      BIGINT NOT NULL CHECK (amount > 0),
    settled_at  BIGINT NOT NULL
);
CREATE INDEX payout_settlements_payout ON payout_settlements (payout_id);
-- The RECEIVED payments of an account, oldest first.
CREATE INDEX payments_connect_status ON payments (connect_account_id, status, created_at, id) WHERE connect_account_id <> '';

-- +goose Down
DROP INDEX payments_connect_status;
DROP TABLE payout_settlements;
