-- +goose Up
-- payments_connect (00026) is read by no query since incoming funds are
-- matched through payments_connect_reference (00037) and payouts list an
-- account's settled payments through payments_connect_status (00034).
-- Every Connect payment's INSERT still wrote an entry into it (issue 16).
DROP INDEX payments_connect;

-- +goose Down
CREATE INDEX payments_connect ON payments (connect_account_id, currency, amount) WHERE connect_account_id <> '';
