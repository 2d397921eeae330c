package clock

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// memTenants is a TenantStore over a fixed customer tree (customer -> top).
type memTenants struct {
	mu      sync.Mutex
	tops    map[string]string
	offsets map[string]time.Duration
	reads   int
}

func newMemTenants() *memTenants {
	return &memTenants{tops: map[string]string{"psp": "psp", "shop": "psp", "other": "other"},
		offsets: map[string]time.Duration{}}
}

func (m *memTenants) TenantClock(_ context.Context, customerID string) (string, time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reads++
	top, ok := m.tops[customerID]
	if !ok {
		return "", 0, errors.New("no such customer")
	}
	return top, m.offsets[top], nil
}

func (m *memTenants) AdvanceTenantClock(_ context.Context, tenantID string, d, max time.Duration) (time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.offsets[tenantID]+d > max {
		return 0, ErrOffsetBound
	}
	m.offsets[tenantID] += d
	return m.offsets[tenantID], nil
}

func (m *memTenants) ResetTenantClock(_ context.Context, tenantID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.offsets, tenantID)
	return nil
}

var start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func mustNow(t *testing.T, c *Tenants, customer string) time.Time {
	t.Helper()
	now, err := c.NowFor(context.Background(), customer)
	if err != nil {
		t.Fatal(err)
	}
	return now
}

func TestTenantClocksAreSeparateAndSharedByATree(t *testing.T) {
	t.Parallel()
	base := NewFake(start)
	c := NewTenants(base, newMemTenants(), 0)
	woken := 0
	c.OnAdvance(func() { woken++ })
	if _, err := c.Advance(context.Background(), "shop", time.Hour); err != nil {
		t.Fatal(err)
	}
	if woken != 1 {
		t.Errorf("OnAdvance called %d times, want 1", woken)
	}
	for customer, want := range map[string]time.Time{"shop": start.Add(time.Hour), "psp": start.Add(time.Hour), "other": start} {
		if got := mustNow(t, c, customer); !got.Equal(want) {
			t.Errorf("NowFor(%s) = %s, want %s", customer, got, want)
		}
	}
	if got := c.Now(); !got.Equal(start) {
		t.Errorf("Now() without a tenant = %s, want the base time", got)
	}
	if got, _ := For(context.Background(), c, ""); !got.Equal(start) {
		t.Errorf("For(no customer) = %s, want the base time", got)
	}
	if got, _ := For(context.Background(), base, "shop"); !got.Equal(start) {
		t.Errorf("For on a plain clock = %s, want its time", got)
	}
}

func TestTenantClockSeesOtherInstancesWithinTTL(t *testing.T) {
	t.Parallel()
	base := NewFake(start)
	shared := newMemTenants()
	a, b := NewTenants(base, shared, 0), NewTenants(base, shared, 0)
	if got := mustNow(t, b, "psp"); !got.Equal(start) {
		t.Fatalf("b = %s", got)
	}
	if _, err := a.Advance(context.Background(), "psp", time.Hour); err != nil {
		t.Fatal(err)
	}
	if got := mustNow(t, b, "psp"); !got.Equal(start) {
		t.Fatalf("b must keep its read for OffsetTTL, got %s", got)
	}
	if got, err := Fresh(context.Background(), b, "shop"); err != nil || !got.Equal(start.Add(time.Hour)) {
		t.Fatalf("Fresh past the cache = %s, %v", got, err)
	}
	if _, err := a.Reset(context.Background(), "psp"); err != nil {
		t.Fatal(err)
	}
	if got := mustNow(t, b, "psp"); !got.Equal(start.Add(time.Hour)) {
		t.Fatalf("b must keep its fresh read for OffsetTTL, got %s", got)
	}
	base.Advance(OffsetTTL)
	if got, want := mustNow(t, b, "psp"), start.Add(OffsetTTL); !got.Equal(want) {
		t.Fatalf("b after OffsetTTL = %s, want %s (a's reset)", got, want)
	}
	reads := shared.reads
	mustNow(t, b, "other") // another tenant: read once, then from the cache
	mustNow(t, b, "other")
	if shared.reads != reads+1 {
		t.Fatalf("reads = %d, want %d: a fresh offset comes from the cache", shared.reads, reads+1)
	}
}

func TestTenantClockBoundAndReset(t *testing.T) {
	t.Parallel()
	base := NewFake(start)
	c := NewTenants(base, newMemTenants(), 0)
	ctx := context.Background()
	for _, d := range []time.Duration{0, -time.Second, MaxAdvance + time.Second} {
		if _, err := c.Advance(ctx, "psp", d); err == nil {
			t.Errorf("Advance(%s) succeeded", d)
		}
	}
	var total time.Duration
	for total+MaxAdvance <= MaxOffset {
		if _, err := c.Advance(ctx, "psp", MaxAdvance); err != nil {
			t.Fatal(err)
		}
		total += MaxAdvance
	}
	if r, err := c.Advance(ctx, "psp", MaxOffset-total+time.Second); !errors.Is(err, ErrOffsetBound) || r.Offset != total {
		t.Fatalf("advance past MaxOffset: %+v, %v; want ErrOffsetBound with the offset as it is", r, err)
	}
	r, err := c.Advance(ctx, "psp", MaxOffset-total)
	if err != nil || r.Offset != MaxOffset || r.TenantID != "psp" {
		t.Fatalf("advance to MaxOffset = %+v, %v", r, err)
	}
	if r, err := c.Reset(ctx, "shop"); err != nil || r.Offset != 0 || !r.Now.Equal(start) {
		t.Fatalf("Reset = %+v, %v", r, err)
	}
	if got := mustNow(t, c, "psp"); !got.Equal(start) {
		t.Fatalf("after reset = %s", got)
	}
}

// A fake clock tells of each advance and set, after it, so that workers
// look at once for what became due.
func TestFakeTellsOfItsAdvances(t *testing.T) {
	t.Parallel()
	f := NewFake(time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC))
	var seen []time.Time
	f.OnAdvance(func() { seen = append(seen, f.Now()) })
	f.Advance(time.Hour)
	f.Set(time.Date(2026, 6, 2, 0, 0, 0, 0, time.UTC))
	want := []time.Time{time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC), time.Date(2026, 6, 2, 0, 0, 0, 0, time.UTC)}
	if len(seen) != 2 || !seen[0].Equal(want[0]) || !seen[1].Equal(want[1]) {
		t.Fatalf("told %v, want %v", seen, want)
	}
}
