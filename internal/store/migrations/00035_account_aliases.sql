-- +goose Up
-- Account aliases (internal/alias): virtual IBANs of a Connect account,
-- issued in batches by a job for an alias order. A batch inserts its
-- aliases and moves its order's completed count in one transaction, saved
-- only over the count it started from; (order_id, seq) and iban are unique,
-- so no alias is issued twice and no batch counted twice.
CREATE TABLE alias_orders (
    id           TEXT PRIMARY KEY,               -- uuid v7
    account_id   TEXT NOT NULL REFERENCES ledger_accounts (id),
    customer_id  TEXT NOT NULL,                  -- the account's customer
    status       TEXT NOT NULL,                  -- PROCESSING, COMPLETED, FAILED
    requested    INTEGER NOT NULL CHECK (requested BETWEEN 1 AND 1000),
    completed    INTEGER NOT NULL DEFAULT 0 CHECK (completed >= 0 AND completed <= requested),
    scenario     TEXT NOT NULL DEFAULT '',       -- sandbox: ORDER_NAMED_ACCOUNTS_FAILED
    failure      TEXT NOT NULL DEFAULT '',       -- why it FAILED
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    completed_at BIGINT                          -- NULL until COMPLETED
);
CREATE INDEX alias_orders_customer ON alias_orders (customer_id, created_at);

CREATE TABLE account_aliases (
    id          TEXT PRIMARY KEY,                -- uuid v7
    account_id  TEXT NOT NULL REFERENCES ledger_accounts (id),
    customer_id TEXT NOT NULL,
    order_id    TEXT NOT NULL REFERENCES alias_orders (id),
    seq         INTEGER NOT NULL CHECK (seq >= 0),
    iban        TEXT NOT NULL UNIQUE,            -- unique across the service
    active      INTEGER NOT NULL DEFAULT 1,      -- 1 active, 0 inactive (funds bounce)
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    UNIQUE (order_id, seq)
);
CREATE INDEX account_aliases_customer ON account_aliases (customer_id, created_at);
CREATE INDEX account_aliases_account ON account_aliases (account_id, created_at);

-- +goose Down
DROP TABLE account_aliases;
DROP TABLE alias_orders;
