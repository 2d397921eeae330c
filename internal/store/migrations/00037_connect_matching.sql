-- +goose Up
-- Incoming funds find their expected payment by reference on the account
-- (store.MatchExpected): without this index the match read every expected
-- payment of the account with the same amount, so a payin slowed down as the
-- account received more payments of one amount.
CREATE INDEX payments_connect_reference ON payments (connect_account_id, unique_reference, currency, amount) WHERE connect_account_id <> '';

-- +goose Down
DROP INDEX payments_connect_reference;
