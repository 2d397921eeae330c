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
