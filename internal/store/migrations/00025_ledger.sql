-- +goose Up
-- The ledger (internal/ledger): accounts, the transactions of the Accounts
-- API, and the double-entry postings behind them. available, pending and
-- held of an account are a cache of the sums of its postings, updated in
-- the same transaction as the postings by a conditional UPDATE that refuses
-- to take any of them below zero (the CHECKs are the last line of defence).
CREATE TABLE ledger_accounts (
    id          TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers (id),
    type        TEXT NOT NULL,
    status      TEXT NOT NULL,
    currency    TEXT NOT NULL,
    iban        TEXT NOT NULL UNIQUE,
    nickname    TEXT NOT NULL DEFAULT '',
    country     TEXT NOT NULL DEFAULT '',
    available   BIGINT NOT NULL DEFAULT 0 CHECK (available >= 0),
    pending     BIGINT NOT NULL DEFAULT 0 CHECK (pending >= 0),
    held        BIGINT NOT NULL DEFAULT 0 CHECK (held >= 0),
    created_at  BIGINT NOT NULL
);
CREATE INDEX ledger_accounts_customer ON ledger_accounts (customer_id, currency, created_at);

CREATE TABLE ledger_transactions (
    id                TEXT PRIMARY KEY,
    account_id        TEXT NOT NULL REFERENCES ledger_accounts (id),
    customer_id       TEXT NOT NULL,
    type              TEXT NOT NULL,
    operation         TEXT NOT NULL,
    status            TEXT NOT NULL,
    amount            BIGINT NOT NULL CHECK (amount > 0),
    currency          TEXT NOT NULL,
    payment_id        TEXT NOT NULL DEFAULT '',
    external_id       TEXT NOT NULL DEFAULT '',
    reference         TEXT NOT NULL DEFAULT '',
    counterparty_name TEXT NOT NULL DEFAULT '',
    counterparty_iban TEXT NOT NULL DEFAULT '',
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL
);
CREATE INDEX ledger_transactions_account ON ledger_transactions (account_id, created_at DESC, id DESC);
CREATE INDEX ledger_transactions_payment ON ledger_transactions (payment_id) WHERE payment_id <> '';
-- The same externalPaymentId for the same account is taken once.
CREATE UNIQUE INDEX ledger_transactions_external ON ledger_transactions (account_id, external_id) WHERE external_id <> '';

-- One row a line of an entry; the lines of an entry sum to zero per
-- currency. account_id is '' for the outside world (bucket EXTERNAL).
CREATE TABLE ledger_postings (
    entry_id       TEXT NOT NULL,
    line           INTEGER NOT NULL,
    transaction_id TEXT NOT NULL REFERENCES ledger_transactions (id),
    account_id     TEXT NOT NULL,
    bucket         TEXT NOT NULL,
    currency       TEXT NOT NULL,
    amount         BIGINT NOT NULL,
    created_at     BIGINT NOT NULL,
    PRIMARY KEY (entry_id, line)
);
CREATE INDEX ledger_postings_account ON ledger_postings (account_id, entry_id);

-- +goose Down
DROP TABLE ledger_postings;
DROP TABLE ledger_transactions;
DROP TABLE ledger_accounts;
