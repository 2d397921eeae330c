-- +goose Up
-- Bank statements (camt.053/054, internal/statement). statement_entries
-- holds the identity of every entry applied (the SHA-256 of the bank's
-- AcctSvcrRef, else NtryRef, else a digest of the entry, with its account
-- IBAN), written in the unit of work that applies it: an entry met again
-- (the same file, or the day's camt.053 repeating a camt.054) finds its
-- key taken and changes nothing.
CREATE TABLE statement_entries (
    entry_key  TEXT PRIMARY KEY,
    identity   TEXT NOT NULL,
    iban       TEXT NOT NULL,
    import_id  TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

-- One row a file imported (every time it is imported): its summary, as
-- JSON (statement.Summary), listed by GET /statements.
CREATE TABLE statement_imports (
    id          TEXT PRIMARY KEY,
    file_name   TEXT NOT NULL,
    file_sha256 TEXT NOT NULL,
    message     TEXT NOT NULL,
    summary     TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE INDEX statement_imports_created ON statement_imports (created_at DESC, id DESC);

-- Booked transactions bankrail does not recognise (a debit it did not
-- initiate), kept for an operator, who resolves them with a note. They
-- move no money.
CREATE TABLE reconciliation_exceptions (
    id            TEXT PRIMARY KEY,
    import_id     TEXT NOT NULL,
    entry_name    TEXT NOT NULL,
    entry_key     TEXT NOT NULL,
    iban          TEXT NOT NULL,
    account_id    TEXT NOT NULL,
    credit        INTEGER NOT NULL,
    amount        BIGINT NOT NULL,
    currency      TEXT NOT NULL,
    end_to_end_id TEXT NOT NULL,
    reference     TEXT NOT NULL,
    counterparty  TEXT NOT NULL,
    booking_date  TEXT NOT NULL,
    reason        TEXT NOT NULL,
    status        TEXT NOT NULL,
    resolution    TEXT NOT NULL DEFAULT '',
    resolved_by   TEXT NOT NULL DEFAULT '',
    resolved_at   BIGINT,
    created_at    BIGINT NOT NULL
);
CREATE INDEX reconciliation_exceptions_status ON reconciliation_exceptions (status, created_at DESC, id DESC);
CREATE INDEX reconciliation_exceptions_created ON reconciliation_exceptions (created_at DESC, id DESC);

-- +goose Down
DROP TABLE reconciliation_exceptions;
DROP TABLE statement_imports;
DROP TABLE statement_entries;
