package worker_test

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/worker"
)

// TestEveryRunsAtOnceOnWakeAndOnItsChannel: AtOnce runs before the first
// tick (an hour away here), a wake runs at once, so does the closing of
// the channel the last run returned; the outcomes go to the log, quietly
// while they are the database's absence; it returns when ctx ends.
func TestEveryRunsAtOnceOnWakeAndOnItsChannel(t *testing.T) {
	t.Parallel()
	rec := &records{}
	ctx, cancel := context.WithCancel(context.Background())
	wake := make(chan struct{}, 1)
	runs := make(chan int, 10)
	var n atomic.Int64
	next := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		worker.Every(ctx, time.Hour, func(context.Context) (<-chan struct{}, error) {
			i := int(n.Add(1))
			runs <- i
			switch i {
			case 1:
				return nil, unavailable()
			case 2:
				return next, unavailable()
			}
			return nil, nil
		}, worker.EveryOptions{AtOnce: true, Wake: wake, Log: worker.NewOutage(slog.New(rec), "test", nil)})
	}()
	wait := func(want int, why string) {
		t.Helper()
		select {
		case got := <-runs:
			if got != want {
				t.Fatalf("%s: run %d, want %d", why, got, want)
			}
		case <-time.After(10 * time.Second): // a deadline for a loaded machine; the tick is an hour away
			t.Fatalf("%s: no run", why)
		}
	}
	wait(1, "at once")
	wake <- struct{}{}
	wait(2, "on a wake")
	close(next)
	wait(3, "on the channel the last run returned")
	wake <- struct{}{}
	wait(4, "on a wake") // run 3's outcome was logged before run 4 began
	cancel()
	wg.Wait()
	got := rec.at(slog.LevelInfo)
	if len(got) != 2 || got[0].level != slog.LevelWarn || got[1].msg != "database reachable again" || got[1].attrs["failures"] != int64(2) {
		t.Fatalf("logged %+v, want one WARN and then \"database reachable again\" after 2 failures", got)
	}
}
