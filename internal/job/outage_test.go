package job

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
)

// downQueue is a queue whose database is away for its first down claims.
type downQueue struct {
	Queue // unused methods
	mu    sync.Mutex
	down  int
	calls int
	back  chan struct{} // closed at the claim after the first that succeeds (whose outcome was logged by then)
}

func (q *downQueue) Claim(context.Context, ClaimRequest) (Claimed, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.calls++
	if q.calls <= q.down {
		return Claimed{}, &errs.Error{Code: errs.Unavailable, Message: "The database is unavailable for a moment.",
			RetryAfter: time.Second, Cause: errors.New("connection refused")}
	}
	if q.calls == q.down+2 {
		close(q.back)
	}
	return Claimed{}, nil
}

// levels counts the records of each level a logger wrote.
type levels struct {
	mu   sync.Mutex
	msgs map[slog.Level][]string
}

func (l *levels) Enabled(context.Context, slog.Level) bool { return true }
func (l *levels) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *levels) WithGroup(string) slog.Handler            { return l }
func (l *levels) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	l.msgs[r.Level] = append(l.msgs[r.Level], r.Message)
	l.mu.Unlock()
	return nil
}

// TestWorkerLogsADatabaseOutageOnce: polling every millisecond while the
// database is away, the worker logs one WARN when the outage begins and
// one INFO "database reachable again" when it ends, not a line per poll
// (issue 32: a failover filled the log).
func TestWorkerLogsADatabaseOutageOnce(t *testing.T) {
	t.Parallel()
	q := &downQueue{down: 200, back: make(chan struct{})}
	log := &levels{msgs: map[slog.Level][]string{}}
	kinds := NewRegistry()
	Register(kinds, "test.noop", func(context.Context, struct{}) error { return nil })
	w := NewWorker(q, kinds, clock.Real{}, slog.New(log), Config{Poll: time.Millisecond})
	w.Start(context.Background())
	select {
	case <-q.back:
	case <-time.After(60 * time.Second): // 200 polls of 1 ms, on a loaded machine
		t.Fatal("the worker did not poll through the outage")
	}
	w.Stop()
	log.mu.Lock()
	defer log.mu.Unlock()
	if warn, info, errors := log.msgs[slog.LevelWarn], log.msgs[slog.LevelInfo], log.msgs[slog.LevelError]; len(warn) != 1 || len(info) != 1 ||
		info[0] != "database reachable again" || len(errors) != 0 {
		t.Fatalf("logged WARN %q, INFO %q, ERROR %q over %d failed polls; want one WARN and one INFO \"database reachable again\"",
			warn, info, errors, q.down)
	}
	if n := len(log.msgs[slog.LevelDebug]); n != q.down-1 {
		t.Errorf("%d DEBUG records, want %d", n, q.down-1)
	}
}
