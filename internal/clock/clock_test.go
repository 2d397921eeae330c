package clock

import (
	"context"
	"sync"
	"testing"
	"time"
)

type memOffsets struct {
	mu  sync.Mutex
	off time.Duration
}

func (m *memOffsets) ClockOffset(context.Context) (time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.off, nil
}

func (m *memOffsets) AdvanceClock(_ context.Context, d time.Duration) (time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.off += d
	return m.off, nil
}

func TestVirtualClockAdvancesAndSharesOffset(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	base := NewFake(start)
	shared := &memOffsets{}
	a := NewVirtual(base, shared)
	b := NewVirtual(base, shared)
	ctx := context.Background()

	if _, err := a.Advance(ctx, 90*time.Minute); err != nil {
		t.Fatal(err)
	}
	if got := a.Now(); !got.Equal(start.Add(90 * time.Minute)) {
		t.Fatalf("a.Now() = %s", got)
	}
	if got := b.Now(); !got.Equal(start) {
		t.Fatalf("b must not see the advance before it reloads, got %s", got)
	}
	if err := b.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if got := b.Now(); !got.Equal(start.Add(90 * time.Minute)) {
		t.Fatalf("b.Now() after load = %s", got)
	}
	base.Advance(time.Minute)
	if got := a.Now(); !got.Equal(start.Add(91 * time.Minute)) {
		t.Fatalf("virtual time must follow its base, got %s", got)
	}
}

func TestVirtualClockRejectsBadAdvance(t *testing.T) {
	t.Parallel()
	v := NewVirtual(Real{}, &memOffsets{})
	for _, d := range []time.Duration{0, -time.Second, MaxAdvance + time.Second} {
		if _, err := v.Advance(context.Background(), d); err == nil {
			t.Errorf("Advance(%s) succeeded", d)
		}
	}
}

func TestVirtualClockNeverGoesBack(t *testing.T) {
	t.Parallel()
	v := NewVirtual(Real{}, &memOffsets{})
	v.observe(time.Hour)
	v.observe(time.Minute)
	if v.Offset() != time.Hour {
		t.Fatalf("offset went back to %s", v.Offset())
	}
}
