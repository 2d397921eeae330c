-- +goose Up
-- Payouts of Connect accounts (internal/payout): a payout is its account's
-- PAYOUT ledger transaction (same id) with the beneficiary and references;
-- every payout has one account holder verification, whose undecided
-- expiry the worker scans on the tenant's clock.
CREATE TABLE payouts (
    id                      TEXT PRIMARY KEY REFERENCES ledger_transactions (id),
    account_id              TEXT NOT NULL REFERENCES ledger_accounts (id),
    customer_id             TEXT NOT NULL,
    client_id               TEXT NOT NULL,
    type                    TEXT NOT NULL,
    amount                  BIGINT NOT NULL CHECK (amount > 0),
    currency                TEXT NOT NULL,
    payment_reference       TEXT NOT NULL,
    internal_reference      TEXT NOT NULL DEFAULT '',
    beneficiary_name        TEXT NOT NULL,
    beneficiary_iban        TEXT NOT NULL DEFAULT '',
    beneficiary_sort_code   TEXT NOT NULL DEFAULT '',
    beneficiary_account_number TEXT NOT NULL DEFAULT '',
    status                  TEXT NOT NULL,
    outcome                 TEXT NOT NULL,
    verification_id         TEXT NOT NULL,
    created_at              BIGINT NOT NULL,
    updated_at              BIGINT NOT NULL
);
CREATE INDEX payouts_customer ON payouts (customer_id, created_at, id);
CREATE INDEX payouts_account ON payouts (account_id, created_at, id);

CREATE TABLE account_holder_verifications (
    id                  TEXT PRIMARY KEY,
    transaction_id      TEXT NOT NULL UNIQUE REFERENCES payouts (id),
    customer_id         TEXT NOT NULL,
    status              TEXT NOT NULL,
    requested_name      TEXT NOT NULL,
    returned_name       TEXT NOT NULL DEFAULT '',
    result              TEXT NOT NULL,
    executed_at         BIGINT NOT NULL,
    expires_at          BIGINT NOT NULL,
    decision_type       TEXT NOT NULL DEFAULT '',
    performer_id        TEXT NOT NULL DEFAULT '',
    performer_name      TEXT NOT NULL DEFAULT '',
    performer_type      TEXT NOT NULL DEFAULT '',
    decided_at          BIGINT
);
-- The expiry scan: held (not MATCH), undecided verifications by expiry.
CREATE INDEX account_holder_verifications_due ON account_holder_verifications (expires_at)
    WHERE decision_type = '' AND result <> 'MATCH';

-- +goose Down
DROP TABLE account_holder_verifications;
DROP TABLE payouts;
