package dashboard

import "fmt"

// orDefault is limit, or def when limit is not set (zero or less).
func orDefault(limit, def int64) int64 {
	if limit <= 0 {
		return def
	}
	return limit
}

// byteSize writes n bytes for a person: whole MiB or KiB when exact, else
// bytes.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
