-- +goose Up
-- NextGenPSD2 (Berlin Group XS2A) payment initiation (issue 27).
--
-- xs2a_initiations: bankrail's side, one row per payment initiated at a
-- bank through the connector (internal/xs2a): the bank's paymentId, the
-- scaRedirect the payer is sent to (again, on a second visit: never a
-- second POST), the X-Request-ID sent, and the last transactionStatus read.
CREATE TABLE xs2a_initiations (
    payment_id         TEXT PRIMARY KEY,
    bank_id            TEXT NOT NULL,
    product            TEXT NOT NULL,
    request_id         TEXT NOT NULL,
    aspsp_payment_id   TEXT NOT NULL,
    sca_redirect       TEXT NOT NULL,
    transaction_status TEXT NOT NULL DEFAULT '',
    reason             TEXT NOT NULL DEFAULT '',
    created_at         BIGINT NOT NULL,
    updated_at         BIGINT NOT NULL
);

-- xs2a_mock_payments: the sandbox's mock ASPSP's side (internal/xs2a/aspsp),
-- the payments initiated at the mock banks (/xs2a/{bankId}/v1/...). One
-- per bank and X-Request-ID: a repeated POST answers the same payment.
CREATE TABLE xs2a_mock_payments (
    id               TEXT PRIMARY KEY,
    bank_id          TEXT NOT NULL,
    product          TEXT NOT NULL,
    request_id       TEXT NOT NULL,
    customer_id      TEXT NOT NULL DEFAULT '',
    body             TEXT NOT NULL,
    redirect_uri     TEXT NOT NULL DEFAULT '',
    nok_redirect_uri TEXT NOT NULL DEFAULT '',
    outcome          TEXT NOT NULL DEFAULT '',
    holder           TEXT NOT NULL DEFAULT '',
    answered_at      BIGINT,
    created_at       BIGINT NOT NULL,
    UNIQUE (bank_id, request_id)
);

-- +goose Down
DROP TABLE xs2a_mock_payments;
DROP TABLE xs2a_initiations;
