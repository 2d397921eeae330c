// Package ids makes and checks the identifiers bankrail issues and accepts:
// uuids in their canonical 36-character form, new ones time-ordered (v7).
package ids

import "github.com/google/uuid"

// IsUUID reports whether s is a uuid in its 36-character form (with
// hyphens, any case); the other forms uuid.Parse takes (braces, urn:uuid:,
// 32 hex digits) are not identifiers of the API.
func IsUUID(s string) bool {
	return len(s) == 36 && uuid.Validate(s) == nil
}

// New returns a new identifier: a uuid v7, whose first 48 bits are the
// time in milliseconds and whose next 12 count up within a millisecond in
// this process, so that ids made one after another sort in that order.
// Rows keyed by such ids are appended at the right edge of their indexes
// instead of at a random page: on SQLite, a group of inserts dirties (and
// writes to the WAL) one index page where random ids dirty one each.
func New() string {
	id, err := uuid.NewV7()
	if err != nil { // crypto/rand does not fail (Go 1.24+); kept for the signature
		return uuid.NewString()
	}
	return id.String()
}
