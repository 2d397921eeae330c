-- +goose Up
-- Transfers out of the Connect accounts through the provider's bank in
-- pain.001 files (internal/transfer): one row per payout or refund sent
-- (the id of its ledger transaction; owner_id the payout's or refund's), queued in the unit of work that decides it, claimed into
-- exactly one file by an export (file_id is set once, under the row's
-- lock), answered by the bank's pain.002 (ACCEPTED, REJECTED) and booked
-- by its debit. transfer_files keeps every file exchanged with the bank
-- about transfers, both directions, with its XML: the production ones
-- (customer_id '') for operators, the sandbox mock bank's per customer.
CREATE TABLE transfers (
    id             TEXT PRIMARY KEY,
    kind           TEXT NOT NULL,
    owner_id       TEXT NOT NULL,
    customer_id    TEXT NOT NULL,
    account_id     TEXT NOT NULL,
    debtor_iban    TEXT NOT NULL,
    debtor_name    TEXT NOT NULL,
    creditor_name  TEXT NOT NULL,
    creditor_iban  TEXT NOT NULL,
    amount         BIGINT NOT NULL CHECK (amount > 0),
    currency       TEXT NOT NULL,
    remittance     TEXT NOT NULL,
    execution_date TEXT NOT NULL,
    scenario       TEXT NOT NULL DEFAULT '',
    state          TEXT NOT NULL,
    file_id        TEXT,
    reason         TEXT NOT NULL DEFAULT '',
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL
);
-- The export's scan: the queued transfers, oldest first.
CREATE INDEX transfers_queued ON transfers (created_at, id) WHERE state = 'QUEUED';
CREATE INDEX transfers_file ON transfers (file_id, id);

CREATE TABLE transfer_files (
    id           TEXT PRIMARY KEY,
    msg_id       TEXT NOT NULL,
    message      TEXT NOT NULL,
    direction    TEXT NOT NULL,
    customer_id  TEXT NOT NULL DEFAULT '',
    original     TEXT NOT NULL DEFAULT '',
    tx_count     INTEGER NOT NULL,
    amount       BIGINT NOT NULL,
    currency     TEXT NOT NULL,
    body         TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    delivered_at BIGINT
);
CREATE UNIQUE INDEX transfer_files_msg ON transfer_files (direction, msg_id);
CREATE INDEX transfer_files_list ON transfer_files (customer_id, created_at, id);
CREATE INDEX transfer_files_undelivered ON transfer_files (created_at, id) WHERE direction = 'OUT' AND delivered_at IS NULL;

-- +goose Down
DROP TABLE transfer_files;
DROP TABLE transfers;
