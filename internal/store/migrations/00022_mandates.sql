-- +goose Up
-- Mandates (internal/mandate): PayTo (AUD) and VRP (GBP) standing
-- authorities, and the amendments of their terms the payer answers. Their
-- moves are events in the event log (subject_type mandate, amendment).
-- version guards every change: a save applies only over the version read.
CREATE TABLE mandates (
    id                   TEXT PRIMARY KEY,          -- uuid v7
    customer_id          TEXT NOT NULL REFERENCES customers (id),
    client_id            TEXT NOT NULL,             -- the creating application: its notifications go there
    user_id              TEXT NOT NULL DEFAULT '',
    type                 TEXT NOT NULL,             -- PAYTO, VRP
    status               TEXT NOT NULL,             -- REQUESTED, ACTIVE, SUSPENDED, DECLINED, CANCELLED, EXPIRED
    currency             TEXT NOT NULL,
    payer_name           TEXT NOT NULL,
    payer_iban           TEXT NOT NULL DEFAULT '',
    payer_sort_code      TEXT NOT NULL DEFAULT '',
    payer_account_number TEXT NOT NULL DEFAULT '',
    payer_bsb            TEXT NOT NULL DEFAULT '',
    valid_from           BIGINT NOT NULL,
    valid_to             BIGINT,                    -- NULL: no end
    payment_limit        BIGINT NOT NULL DEFAULT 0, -- PAYTO: payTo.limits.payment.amount
    used_at              BIGINT,                    -- the first payment against it
    token                TEXT NOT NULL,             -- the payer's capability for the mock bank's page
    version              INTEGER NOT NULL,
    created_at           BIGINT NOT NULL,
    updated_at           BIGINT NOT NULL
);
CREATE INDEX mandates_customer ON mandates (customer_id, created_at);
-- What the timed moves read: live mandates by the end of their validity.
CREATE INDEX mandates_expiry ON mandates (valid_to) WHERE valid_to IS NOT NULL AND status IN ('REQUESTED', 'ACTIVE', 'SUSPENDED');

CREATE TABLE mandate_amendments (
    id             TEXT PRIMARY KEY,                 -- uuid v7
    mandate_id     TEXT NOT NULL REFERENCES mandates (id),
    customer_id    TEXT NOT NULL REFERENCES customers (id),
    track          TEXT NOT NULL,
    initiator      TEXT NOT NULL,
    status         TEXT NOT NULL,                    -- AWAITING_APPROVAL, APPROVED, DECLINED, ABANDONED, RECALLED
    details_reason TEXT NOT NULL DEFAULT '',
    details_code   TEXT NOT NULL DEFAULT '',         -- '' while AWAITING_APPROVAL
    valid_from     BIGINT,                           -- the changes; NULL: unchanged
    valid_to       BIGINT,
    payment_limit  BIGINT,
    token          TEXT NOT NULL,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL
);
CREATE INDEX mandate_amendments_mandate ON mandate_amendments (mandate_id, created_at);
-- One open amendment per mandate; and what the abandonment reads.
CREATE UNIQUE INDEX mandate_amendments_open ON mandate_amendments (mandate_id) WHERE status = 'AWAITING_APPROVAL';
CREATE INDEX mandate_amendments_due ON mandate_amendments (created_at) WHERE status = 'AWAITING_APPROVAL';

-- +goose Down
DROP TABLE mandate_amendments;
DROP TABLE mandates;
