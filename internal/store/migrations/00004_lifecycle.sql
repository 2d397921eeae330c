-- +goose Up
-- The payment lifecycle: the move that happens by itself when the clock
-- reaches next_at (abandonment 30 minutes after creation, the answer of a
-- bank that delayed). The timed-move worker of every instance looks for due
-- rows through payments_due.
ALTER TABLE payments ADD COLUMN next_status TEXT NOT NULL DEFAULT '';
ALTER TABLE payments ADD COLUMN next_at BIGINT;
CREATE INDEX payments_due ON payments (next_at) WHERE next_at IS NOT NULL;

-- Payments created before this migration are abandoned like new ones.
UPDATE payments SET next_status = 'ABANDONED_BY_USER', next_at = created_at + 1800000000
WHERE status IN ('NEW_PAYMENT', 'BANK_REDIRECT');

-- +goose Down
DROP INDEX payments_due;
ALTER TABLE payments DROP COLUMN next_at;
ALTER TABLE payments DROP COLUMN next_status;
