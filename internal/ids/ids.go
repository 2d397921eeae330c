// Package ids checks the identifiers bankrail issues and accepts: uuids in
// their canonical 36-character form.
package ids

import "github.com/google/uuid"

// IsUUID reports whether s is a uuid in its 36-character form (with
// hyphens, any case); the other forms uuid.Parse takes (braces, urn:uuid:,
// 32 hex digits) are not identifiers of the API.
func IsUUID(s string) bool {
	return len(s) == 36 && uuid.Validate(s) == nil
}
