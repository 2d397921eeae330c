-- +goose Up
-- Every list reads its page from an index in order, one ordered, LIMITed
-- scan per customer the viewer sees, merged (store/keyset.go; issue 16,
-- item 3): these lists had an index on (customer_id, created_at) only,
-- without the id that breaks ties in their order, or on one account
-- without it. Each replaces the narrower index it extends.
CREATE INDEX mandates_customer_created ON mandates (customer_id, created_at DESC, id DESC);
DROP INDEX mandates_customer;
CREATE INDEX channels_customer_created ON channels (customer_id, created_at DESC, id DESC);
DROP INDEX channels_customer;
CREATE INDEX notifications_customer_created ON notifications (customer_id, created_at DESC, id DESC);
DROP INDEX notifications_customer;
CREATE INDEX account_aliases_customer_created ON account_aliases (customer_id, created_at DESC, id DESC);
DROP INDEX account_aliases_customer;
CREATE INDEX account_aliases_account_created ON account_aliases (account_id, created_at DESC, id DESC);
DROP INDEX account_aliases_account;
-- ledger_accounts_customer (customer_id, currency, created_at) stays: the
-- Connect account look-ups by currency read it.
CREATE INDEX ledger_accounts_customer_created ON ledger_accounts (customer_id, created_at DESC, id DESC);

-- +goose Down
DROP INDEX ledger_accounts_customer_created;
CREATE INDEX account_aliases_account ON account_aliases (account_id, created_at);
DROP INDEX account_aliases_account_created;
CREATE INDEX account_aliases_customer ON account_aliases (customer_id, created_at);
DROP INDEX account_aliases_customer_created;
CREATE INDEX notifications_customer ON notifications (customer_id, created_at);
DROP INDEX notifications_customer_created;
CREATE INDEX channels_customer ON channels (customer_id, created_at);
DROP INDEX channels_customer_created;
CREATE INDEX mandates_customer ON mandates (customer_id, created_at);
DROP INDEX mandates_customer_created;
