package mandate

import (
	"time"

	"github.com/bankrail/bankrail/internal/errs"
)

// TimestampLayout is how validity timestamps are written on the wire:
// date, space, time, in UTC ("2026-06-01 09:00:00").
const TimestampLayout = "2006-01-02 15:04:05"

// FormatTimestamp writes t in TimestampLayout (UTC).
func FormatTimestamp(t time.Time) string { return t.UTC().Format(TimestampLayout) }

// parseTimestamp reads a validity timestamp at path into v: INVALID_FORMAT
// when it is not TimestampLayout.
func parseTimestamp(v *errs.Validation, path, s string) (time.Time, bool) {
	t, err := time.Parse(TimestampLayout, s)
	if err != nil {
		v.Add(errs.InvalidFormat, path, "%s must be written YYYY-MM-DD hh:mm:ss (UTC), e.g. 2026-06-01 09:00:00.", path)
		return time.Time{}, false
	}
	return t.UTC(), true
}
