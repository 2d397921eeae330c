-- +goose Up
-- Connect: a payment created while its customer has an ACTIVE Connect
-- account in its currency is expected on that account (docs/connect.md);
-- '' for any other payment. Incoming funds are matched through
-- payments_connect.
ALTER TABLE payments ADD COLUMN connect_account_id TEXT NOT NULL DEFAULT '';
CREATE INDEX payments_connect ON payments (connect_account_id, currency, amount) WHERE connect_account_id <> '';

-- +goose Down
DROP INDEX payments_connect;
ALTER TABLE payments DROP COLUMN connect_account_id;
