package replica_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/replica"
)

// fakeWAL is a primary and a replica whose positions the test moves; the
// replica is down while down is set.
type fakeWAL struct {
	mu                sync.Mutex
	primary, replayed uint64
	down              bool
}

func (w *fakeWAL) Primary(context.Context) (uint64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.primary, nil
}

func (w *fakeWAL) Replayed(context.Context) (uint64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.down {
		return 0, errors.New("connection refused")
	}
	return w.replayed, nil
}

// write moves the primary on by n bytes of WAL; replay moves the replica
// to where the primary is.
func (w *fakeWAL) write(n uint64) { w.mu.Lock(); w.primary += n; w.mu.Unlock() }
func (w *fakeWAL) replay()        { w.mu.Lock(); w.replayed = w.primary; w.mu.Unlock() }
func (w *fakeWAL) setDown(d bool) { w.mu.Lock(); w.down = d; w.mu.Unlock() }

// recorder is the Switch and the Observer.
type recorder struct {
	mu   sync.Mutex
	use  bool
	lags []time.Duration
}

func (r *recorder) UseReplica(fresh bool) { r.mu.Lock(); r.use = fresh; r.mu.Unlock() }
func (r *recorder) ReplicaLag(lag time.Duration, _ bool) {
	r.mu.Lock()
	r.lags = append(r.lags, lag)
	r.mu.Unlock()
}
func (r *recorder) state() (bool, time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.use, r.lags[len(r.lags)-1]
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// The replica serves reads while its lag, measured from the WAL positions
// at each check, is within the bound; lagging or down, it is skipped, and
// it comes back when it catches up.
func TestMonitorSkipsALaggingOrDownReplica(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	wal := &fakeWAL{primary: 100, replayed: 50}
	rec := &recorder{}
	m := replica.NewMonitor(wal, rec, rec, clk, replica.Config{MaxLag: 5 * time.Second, Interval: time.Second}, quiet())
	check := func(wantUse bool, wantLag time.Duration, why string) {
		t.Helper()
		if err := m.Check(ctx); err != nil {
			t.Fatal(err)
		}
		use, lag := rec.state()
		if use != wantUse || lag != wantLag || m.Used() != wantUse {
			t.Fatalf("%s: used %v lag %s, want used %v lag %s", why, use, lag, wantUse, wantLag)
		}
	}
	check(false, -1, "a replica behind the first sample has an unknown lag")
	clk.Advance(time.Second)
	wal.replay()
	check(true, 0, "caught up")
	// The primary writes every second; the replica stops replaying.
	for i := 1; i <= 5; i++ {
		wal.write(10)
		clk.Advance(time.Second)
		check(true, time.Duration(i)*time.Second, "within the bound")
	}
	wal.write(10)
	clk.Advance(time.Second)
	check(false, 6*time.Second, "beyond the bound")
	wal.replay()
	clk.Advance(time.Second)
	check(true, 0, "caught up again")
	// An idle primary: nothing to replay, no lag however long it lasts.
	clk.Advance(time.Hour)
	check(true, 0, "idle")
	wal.setDown(true)
	clk.Advance(time.Second)
	check(false, -1, "down")
	wal.setDown(false)
	check(true, 0, "back")
}

// A replica that replays part of the way is as old as the newest sample
// it has passed.
func TestLagometerCountsFromTheNewestReplayedSample(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var l replica.Lagometer
	for i, want := range []struct {
		primary, replayed uint64
		lag               time.Duration
		ok                bool
	}{
		{100, 100, 0, true},
		{200, 100, time.Second, true},
		{300, 150, 2 * time.Second, true},
		{400, 250, 2 * time.Second, true}, // at t0+3s, past 200 (t0+1s), not 300 (t0+2s)
		{400, 400, 0, true},
	} {
		lag, ok := l.Observe(t0.Add(time.Duration(i)*time.Second), want.primary, want.replayed)
		if lag != want.lag || ok != want.ok {
			t.Fatalf("check %d: lag %s ok %v, want %s %v", i, lag, ok, want.lag, want.ok)
		}
	}
}

// Start checks at once; Stop waits and stops using the replica.
func TestMonitorStartStop(t *testing.T) {
	t.Parallel()
	wal := &fakeWAL{primary: 7, replayed: 7}
	rec := &recorder{}
	m := replica.NewMonitor(wal, rec, nil, clock.Real{}, replica.Config{MaxLag: time.Second, Interval: 10 * time.Millisecond}, quiet())
	m.Start(context.Background())
	deadline := time.Now().Add(5 * time.Second)
	for !m.Used() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // waiting for the worker's first check, not timing logic
	}
	if !m.Used() {
		t.Fatal("the replica is not used after the first check")
	}
	m.Stop()
	if rec.use {
		t.Fatal("the replica is still used after Stop")
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		cfg replica.Config
		ok  bool
	}{
		{replica.Config{}, true},
		{replica.Config{MaxLag: 50 * time.Millisecond}, false},
		{replica.Config{MaxLag: time.Second, Interval: 2 * time.Second}, false},
		{replica.Config{Interval: time.Millisecond}, false},
		{replica.Config{MaxLag: time.Minute, Interval: 10 * time.Second}, true},
	} {
		if err := tt.cfg.WithDefaults().Validate(); (err == nil) != tt.ok {
			t.Errorf("%+v: %v, want ok %v", tt.cfg, err, tt.ok)
		}
	}
}
