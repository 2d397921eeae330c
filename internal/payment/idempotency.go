package payment

import (
	"encoding/json"

	"bankrail/internal/idempotency"
)

// MaxIdempotencyKeyLength is the longest Idempotency-Key accepted.
const MaxIdempotencyKeyLength = idempotency.MaxKeyLength

// Fingerprint identifies a payment creation for idempotency: the operation,
// the initiation channel and the normalised request, so that formatting,
// key order and unknown fields do not matter.
func Fingerprint(operation string, ch Channel, r CreateRequest) string {
	body, _ := json.Marshal(r) // plain structs: cannot fail
	return idempotency.Fingerprint(operation, []byte(ch), body)
}
