package legacy

import (
	"strconv"
	"time"
)

// The legacy Payments API is deprecated for hosted-checkout payment
// creation; its support ends at the end of 2025 (service interface,
// Versioning).
var (
	// DeprecatedAt is when the legacy API was deprecated (the Deprecation
	// header, RFC 9745).
	DeprecatedAt = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	// SunsetAt is when its support ends (the Sunset header, RFC 8594).
	SunsetAt = time.Date(2025, 12, 31, 23, 59, 59, 0, time.UTC)
)

// GuidePath is where bankrail serves the migration guide (Guide).
const GuidePath = "/legacy/migration-guide"

// Header is one response header.
type Header struct{ Name, Value string }

// DeprecationHeaders are the headers every legacy response carries: when
// the API was deprecated (RFC 9745 structured date), when it ends (RFC 8594
// HTTP date) and a link to the migration guide.
func DeprecationHeaders() []Header {
	link := "<" + GuidePath + `>; rel="deprecation"; type="text/markdown", <` + GuidePath + `>; rel="sunset"; type="text/markdown"`
	return []Header{
		{"Deprecation", "@" + strconv.FormatInt(DeprecatedAt.Unix(), 10)},
		{"Sunset", SunsetAt.UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT")},
		{"Link", link},
	}
}
