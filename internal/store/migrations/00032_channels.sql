-- +goose Up
-- Stablecoin deposit channels (internal/channel) and the deposits received
-- on them. Token amounts are exact integers of micro units (10^-6 token);
-- the rate is kept as the decimal string it was applied at. A deposit is
-- PROCESSING from its detection and COMPLETED once its confirmations are
-- due on the tenant's clock; the confirmation saves only over PROCESSING.
CREATE TABLE channels (
    id                 TEXT PRIMARY KEY,          -- uuid v7
    customer_id        TEXT NOT NULL REFERENCES customers (id),
    client_id          TEXT NOT NULL,             -- the creating application: its notifications go there
    token              TEXT NOT NULL,             -- USDC, EURC
    network            TEXT NOT NULL,             -- ETH, SOL, BASE, POLYGON
    currency           TEXT NOT NULL,             -- the fiat credited
    address            TEXT NOT NULL UNIQUE,
    status             TEXT NOT NULL,             -- ACTIVE
    end_user_reference TEXT NOT NULL,
    created_at         BIGINT NOT NULL
);
CREATE INDEX channels_customer ON channels (customer_id, created_at);

CREATE TABLE channel_payments (
    id                 TEXT PRIMARY KEY,          -- uuid v7: time-ordered
    channel_id         TEXT NOT NULL REFERENCES channels (id),
    customer_id        TEXT NOT NULL REFERENCES customers (id),
    status             TEXT NOT NULL,             -- PROCESSING, COMPLETED
    end_user_reference TEXT NOT NULL,
    hash               TEXT NOT NULL,
    paid_micros        BIGINT NOT NULL CHECK (paid_micros > 0),
    token              TEXT NOT NULL,
    detected_at        BIGINT NOT NULL,
    confirmed_at       BIGINT,                    -- NULL while PROCESSING
    credited_amount    BIGINT,                    -- minor units; NULL while PROCESSING
    credited_currency  TEXT,
    rate_value         TEXT,                      -- exact decimal string
    rate_pair          TEXT,
    transaction_id     TEXT NOT NULL DEFAULT '',  -- the ledger's TOP_UP, '' when nothing was credited
    created_at         BIGINT NOT NULL,
    updated_at         BIGINT NOT NULL
);
CREATE INDEX channel_payments_channel ON channel_payments (channel_id, created_at, id);
-- What the timed moves read: deposits waiting for their confirmations.
CREATE INDEX channel_payments_due ON channel_payments (detected_at) WHERE status = 'PROCESSING';

-- +goose Down
DROP TABLE channel_payments;
DROP TABLE channels;
