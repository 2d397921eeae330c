package worker

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"
)

func TestPeriodicRunsUntilStopped(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	p := NewPeriodic("test", time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)), func(ctx context.Context) error {
		calls.Add(1)
		return errors.New("errors do not stop the worker")
	})
	p.Start(context.Background())
	deadline := time.Now().Add(5 * time.Second)
	for calls.Load() < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("only %d calls", calls.Load())
		}
		time.Sleep(time.Millisecond)
	}
	p.Stop()
	after := calls.Load()
	time.Sleep(10 * time.Millisecond) // nothing may run after Stop returned
	if calls.Load() != after {
		t.Fatal("the worker ran after Stop")
	}
	p.Stop() // a second Stop is harmless
}

// A wake runs the function at once, long before its next tick; wakes that
// come while one is pending make one call.
func TestPeriodicRunsAtOnceWhenWoken(t *testing.T) {
	t.Parallel()
	calls := make(chan struct{}, 10)
	p := NewPeriodic("test", time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)), func(ctx context.Context) error {
		calls <- struct{}{}
		return nil
	})
	p.Wake()
	p.Wake() // pending already: no second call
	p.Start(context.Background())
	defer p.Stop()
	select {
	case <-calls:
	case <-time.After(10 * time.Second): // a deadline for a loaded machine; the tick is an hour away
		t.Fatal("a wake did not run the function")
	}
	p.Wake()
	select {
	case <-calls:
	case <-time.After(10 * time.Second):
		t.Fatal("a second wake did not run the function")
	}
	p.Stop()
	if n := len(calls); n != 0 {
		t.Fatalf("%d calls more than the wakes asked", n)
	}
}
