-- +goose Up
-- What the payment details record reads of a payment's request, as columns
-- (payment.View), and the sender as columns, so that GET /payments/{id} and
-- GET /payments decode no JSON (issue 16, item 2). view_columns is 1 on rows
-- written since; older rows keep 0 and are read from their JSON as before
-- (no backfill: extracting JSON is not the SQL both engines share).
ALTER TABLE payments ADD COLUMN view_columns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE payments ADD COLUMN payment_type TEXT NOT NULL DEFAULT '';
ALTER TABLE payments ADD COLUMN payer_email TEXT NOT NULL DEFAULT '';
ALTER TABLE payments ADD COLUMN device_ip TEXT NOT NULL DEFAULT '';
ALTER TABLE payments ADD COLUMN device_fingerprint TEXT NOT NULL DEFAULT '';
ALTER TABLE payments ADD COLUMN beneficiary_name TEXT NOT NULL DEFAULT '';
ALTER TABLE payments ADD COLUMN beneficiary_iban TEXT NOT NULL DEFAULT '';
ALTER TABLE payments ADD COLUMN beneficiary_swift_bic TEXT NOT NULL DEFAULT '';
ALTER TABLE payments ADD COLUMN beneficiary_sort_code TEXT NOT NULL DEFAULT '';
ALTER TABLE payments ADD COLUMN beneficiary_account_number TEXT NOT NULL DEFAULT '';
-- NULL while the bank has not reported the paying account (sender IS NULL).
ALTER TABLE payments ADD COLUMN sender_name TEXT;
ALTER TABLE payments ADD COLUMN sender_iban TEXT NOT NULL DEFAULT '';
ALTER TABLE payments ADD COLUMN sender_sort_code TEXT NOT NULL DEFAULT '';
ALTER TABLE payments ADD COLUMN sender_account_number TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE payments DROP COLUMN sender_account_number;
ALTER TABLE payments DROP COLUMN sender_sort_code;
ALTER TABLE payments DROP COLUMN sender_iban;
ALTER TABLE payments DROP COLUMN sender_name;
ALTER TABLE payments DROP COLUMN beneficiary_account_number;
ALTER TABLE payments DROP COLUMN beneficiary_sort_code;
ALTER TABLE payments DROP COLUMN beneficiary_swift_bic;
ALTER TABLE payments DROP COLUMN beneficiary_iban;
ALTER TABLE payments DROP COLUMN beneficiary_name;
ALTER TABLE payments DROP COLUMN device_fingerprint;
ALTER TABLE payments DROP COLUMN device_ip;
ALTER TABLE payments DROP COLUMN payer_email;
ALTER TABLE payments DROP COLUMN payment_type;
ALTER TABLE payments DROP COLUMN view_columns;
