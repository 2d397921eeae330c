-- +goose Up
-- Asynchronous CSV reports (internal/report). A report is written with the
-- job that generates it; its file is kept gzip-compressed in chunks of one
-- attempt: only the chunks of reports.attempt belong to the file, so a
-- crashed attempt's chunks are ignored (and deleted by the next attempt).
CREATE TABLE reports (
    id           TEXT PRIMARY KEY,
    customer_id  TEXT NOT NULL REFERENCES customers (id), -- the creator's customer (visibility)
    client_id    TEXT NOT NULL,                           -- told by report_available
    user_id      TEXT NOT NULL,
    type         TEXT NOT NULL,                           -- PAYMENTS, REFUNDS, PAYOUTS, AUDIT_LOG, CONNECT
    status       TEXT NOT NULL,                           -- REPORT_REQUESTED, _GENERATING, _AVAILABLE, _FAILED
    params       TEXT NOT NULL,                           -- JSON of the accepted parameters
    attempt      INTEGER NOT NULL DEFAULT 0,
    row_count    BIGINT NOT NULL DEFAULT 0,
    size_bytes   BIGINT NOT NULL DEFAULT 0,
    stored_bytes BIGINT NOT NULL DEFAULT 0,
    failure      TEXT NOT NULL DEFAULT '',
    created_at   BIGINT NOT NULL,
    generated_at BIGINT
);
CREATE INDEX reports_customer_created ON reports (customer_id, created_at DESC, id DESC);

CREATE TABLE report_chunks (
    report_id TEXT NOT NULL REFERENCES reports (id),
    attempt   INTEGER NOT NULL,
    seq       INTEGER NOT NULL,
    data      BYTEA NOT NULL,                             -- a piece of the gzip stream
    PRIMARY KEY (report_id, attempt, seq)
);

-- +goose Down
DROP TABLE report_chunks;
DROP TABLE reports;
