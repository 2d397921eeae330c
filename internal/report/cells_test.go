package report

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// cells writes times exactly as time.Format(TimeFormat) does and integers
// as strconv: random instants over the years 1 to 9999 and around today,
// fractions of every length (whole seconds, micro- and nanoseconds), rows
// of the same day and of the next one, and years outside four digits.
func TestCellsFormatLikeTheStandardLibrary(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	var c cells
	base := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	fixed := []time.Time{base, base.Add(-time.Nanosecond), base.Add(time.Microsecond), base.Add(999 * time.Millisecond),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 500000000, time.UTC), time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(0, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 2, 29, 12, 0, 0, 100, time.FixedZone("X", 3600))}
	for i := range 200_000 {
		var at time.Time
		switch {
		case i < len(fixed):
			at = fixed[i]
		case i%3 == 0: // any instant of years 1..9999
			at = time.Unix(rng.Int64N(253402300800+62135596800)-62135596800, rng.Int64N(1e9)).UTC()
		case i%3 == 1: // consecutive rows around today, microseconds
			at = base.Add(time.Duration(rng.Int64N(int64(90 * 24 * time.Hour)))).Truncate(time.Microsecond)
		default: // whole seconds and milliseconds
			at = base.Add(time.Duration(rng.Int64N(1e6)) * time.Millisecond).Truncate(time.Duration(1+rng.IntN(2)*999) * time.Millisecond)
		}
		n := rng.Int64() - rng.Int64()
		c.reset()
		c.time(at)
		c.int(n)
		c.time(at.Add(time.Hour))
		var a, b, d string
		c.into(&a, &b, &d)
		if want := at.UTC().Format(TimeFormat); a != want {
			t.Fatalf("%v: %q, want %q", at, a, want)
		}
		if want := strconv.FormatInt(n, 10); b != want {
			t.Fatalf("%d: %q", n, b)
		}
		if want := at.Add(time.Hour).UTC().Format(TimeFormat); d != want {
			t.Fatalf("%v: %q, want %q", at.Add(time.Hour), d, want)
		}
	}
}

func BenchmarkCellsTime(b *testing.B) {
	var c cells
	at := time.Date(2026, 6, 1, 9, 0, 0, 123456000, time.UTC)
	var s string
	for i := range b.N {
		c.reset()
		c.time(at.Add(time.Duration(i) * time.Millisecond))
		c.into(&s)
	}
}

func BenchmarkTimeFormat(b *testing.B) {
	at := time.Date(2026, 6, 1, 9, 0, 0, 123456000, time.UTC)
	for i := range b.N {
		_ = at.Add(time.Duration(i) * time.Millisecond).Format(TimeFormat)
	}
}
