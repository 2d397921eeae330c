package payment

import "github.com/bankrail/bankrail/internal/idempotency"

// MaxIdempotencyKeyLength is the longest Idempotency-Key accepted.
const MaxIdempotencyKeyLength = idempotency.MaxKeyLength

// Fingerprint identifies a payment creation for idempotency: the operation,
// the initiation channel and the normalised request in its canonical
// encoding (canonical), so that formatting, key order and unknown fields do
// not matter, and a key stored by an earlier version replays.
func Fingerprint(operation string, ch Channel, r CreateRequest) string {
	return idempotency.Fingerprint(operation, []byte(ch), canonical(r))
}
