package worker_test

import (
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/worker"
)

// unavailable is a store's error for a lost database connection.
func unavailable() error {
	return fmt.Errorf("claim jobs: %w", &errs.Error{Code: errs.Unavailable, Message: "The database is unavailable for a moment.",
		RetryAfter: time.Second, Cause: errors.New("dial tcp 127.0.0.1:5432: connect: connection refused")})
}

// TestOutageLogsItsStartAndItsEnd: while the database is away a task's
// failures log one WARN, then the recovery one INFO with the outage's
// length and the failures counted; another error is logged every time.
func TestOutageLogsItsStartAndItsEnd(t *testing.T) {
	t.Parallel()
	rec := &records{}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	o := worker.NewOutage(slog.New(rec), "claim notifications", func() time.Time { return now })
	o.Observe(nil) // a success without an outage logs nothing
	for range 50 { // polls while the database is away
		o.Observe(unavailable())
		now = now.Add(100 * time.Millisecond)
	}
	o.Observe(nil)
	o.Observe(nil)
	got := rec.at(slog.LevelInfo)
	if len(got) != 2 {
		t.Fatalf("%d records at INFO or above, want 2 (the outage's start and end): %+v", len(got), got)
	}
	if got[0].level != slog.LevelWarn || got[0].attrs["task"] != "claim notifications" || got[0].attrs["err"] == nil {
		t.Errorf("first record %+v, want a WARN naming the task and the error", got[0])
	}
	if got[1].level != slog.LevelInfo || got[1].msg != "database reachable again" ||
		got[1].attrs["outage"] != 5*time.Second || got[1].attrs["failures"] != int64(50) {
		t.Errorf("second record %+v, want INFO \"database reachable again\" outage=5s failures=50", got[1])
	}
	if n := len(rec.at(slog.LevelDebug)) - len(got); n != 49 {
		t.Errorf("%d DEBUG records, want 49 (the failures after the first)", n)
	}
	// A fault that is not the database's absence is logged each time.
	o.Observe(errors.New("a bug"))
	o.Observe(errors.New("a bug"))
	if n := len(rec.at(slog.LevelWarn)); n != 3 {
		t.Errorf("%d WARN records after two other errors, want 3", n)
	}
}
