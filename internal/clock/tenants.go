package clock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// MaxAdvance bounds one advance of a sandbox clock.
const MaxAdvance = 400 * 24 * time.Hour

// MaxOffset bounds how far a sandbox clock may be ahead of the wall clock in
// total: 10 years (3,650 days). Past it an advance is refused; a reset
// brings the clock back to wall time.
const MaxOffset = 3650 * 24 * time.Hour

// OffsetTTL is how long an instance trusts an offset it read, by default:
// another instance's advance or reset is seen within it. Advances and
// resets made by this instance are seen at once.
const OffsetTTL = time.Second

// ErrOffsetBound is returned by an advance that would take a clock past
// MaxOffset; the TenantStore returns it when its bounded update matches no
// row.
var ErrOffsetBound = errors.New("sandbox clock offset bound reached")

// TenantStore keeps the offset of each tenant's sandbox clock. A tenant is a
// top-level customer: it and every customer below it share one clock.
type TenantStore interface {
	// TenantClock returns the top-level customer of customerID and its
	// offset (0 when its clock was never moved). An unknown customer is
	// NOT_FOUND.
	TenantClock(ctx context.Context, customerID string) (tenantID string, offset time.Duration, err error)
	// AdvanceTenantClock adds d to tenantID's offset atomically, unless the
	// result would exceed max (ErrOffsetBound), and returns the new offset.
	AdvanceTenantClock(ctx context.Context, tenantID string, d, max time.Duration) (time.Duration, error)
	// ResetTenantClock sets tenantID's offset back to 0.
	ResetTenantClock(ctx context.Context, tenantID string) error
}

// TenantClock is a Clock whose time may depend on the customer it is asked
// for: the sandbox's per-tenant clocks. Its Now is the base time, for what
// belongs to no customer.
type TenantClock interface {
	Clock
	// NowFor is the time of customerID's tenant, from a short cache.
	NowFor(ctx context.Context, customerID string) (time.Time, error)
	// FreshFor is NowFor read from the database, past the cache.
	FreshFor(ctx context.Context, customerID string) (time.Time, error)
}

// For returns the time of customerID on c: its tenant's sandbox time when c
// is a TenantClock, else c.Now(). An empty customerID is the base time.
func For(ctx context.Context, c Clock, customerID string) (time.Time, error) {
	if tc, ok := c.(TenantClock); ok && customerID != "" {
		return tc.NowFor(ctx, customerID)
	}
	return c.Now(), nil
}

// Fresh is For past any cache: for a time that looks like it comes from the
// tenant's future (a token issued by another instance just after an
// advance there), before refusing it.
func Fresh(ctx context.Context, c Clock, customerID string) (time.Time, error) {
	if tc, ok := c.(TenantClock); ok && customerID != "" {
		return tc.FreshFor(ctx, customerID)
	}
	return c.Now(), nil
}

// Reading is one tenant's sandbox clock.
type Reading struct {
	TenantID string        // the top-level customer whose clock it is
	Now      time.Time     // base time plus Offset
	Offset   time.Duration // how far it is ahead of the base clock
}

// Tenants is the sandbox clock: one virtual clock per top-level customer,
// each the base clock plus an offset kept in the database (so every
// instance agrees, within OffsetTTL) that grows by Advance, at most to
// MaxOffset, and goes back to 0 by Reset. Its Now, with no tenant, is the
// base time.
type Tenants struct {
	base  Clock
	store TenantStore
	ttl   time.Duration

	mu        sync.Mutex
	tops      map[string]string // customer -> top-level customer (the tree does not change)
	offsets   map[string]cachedOffset
	onAdvance []func()
}

type cachedOffset struct {
	offset time.Duration
	read   time.Time // base time of the read
}

// maxCached bounds each cache; when full it starts again empty.
const maxCached = 100_000

var _ TenantClock = (*Tenants)(nil)

// NewTenants returns the per-tenant sandbox clock over base; an offset read
// is trusted for ttl (OffsetTTL when ttl <= 0).
func NewTenants(base Clock, store TenantStore, ttl time.Duration) *Tenants {
	if ttl <= 0 {
		ttl = OffsetTTL
	}
	return &Tenants{base: base, store: store, ttl: ttl, tops: map[string]string{}, offsets: map[string]cachedOffset{}}
}

// Now returns the base time (what belongs to no tenant).
func (t *Tenants) Now() time.Time { return t.base.Now() }

// NowFor returns the time on the clock of customerID's tenant.
func (t *Tenants) NowFor(ctx context.Context, customerID string) (time.Time, error) {
	r, err := t.Read(ctx, customerID)
	return r.Now, err
}

// FreshFor returns the time on the clock of customerID's tenant, read from
// the store (and cached).
func (t *Tenants) FreshFor(ctx context.Context, customerID string) (time.Time, error) {
	r, err := t.load(ctx, customerID)
	return r.Now, err
}

// Read returns the clock of customerID's tenant, from the cache when it was
// read less than the TTL ago (on the base clock).
func (t *Tenants) Read(ctx context.Context, customerID string) (Reading, error) {
	now := t.base.Now()
	t.mu.Lock()
	top, known := t.tops[customerID]
	c, fresh := t.offsets[top]
	t.mu.Unlock()
	if known && fresh && now.Sub(c.read) < t.ttl && !now.Before(c.read) {
		return Reading{TenantID: top, Now: now.Add(c.offset), Offset: c.offset}, nil
	}
	return t.load(ctx, customerID)
}

// load reads the clock of customerID's tenant from the store and caches it.
func (t *Tenants) load(ctx context.Context, customerID string) (Reading, error) {
	now := t.base.Now()
	top, off, err := t.store.TenantClock(ctx, customerID)
	if err != nil {
		return Reading{}, fmt.Errorf("read the sandbox clock of customer %s: %w", customerID, err)
	}
	t.remember(customerID, top, off, now)
	return Reading{TenantID: top, Now: now.Add(off), Offset: off}, nil
}

// Advance moves the clock of customerID's tenant forward by d (0 < d <=
// MaxAdvance) for every customer of that tenant, on every instance. An
// advance past MaxOffset in total is ErrOffsetBound and changes nothing; it
// comes with the clock as it is in the store (to say how much is left).
func (t *Tenants) Advance(ctx context.Context, customerID string, d time.Duration) (Reading, error) {
	if d <= 0 || d > MaxAdvance {
		return Reading{}, fmt.Errorf("advance of %s is out of range (0, %s]", d, MaxAdvance)
	}
	r, err := t.Read(ctx, customerID)
	if err != nil {
		return Reading{}, err
	}
	off, err := t.store.AdvanceTenantClock(ctx, r.TenantID, d, MaxOffset)
	if errors.Is(err, ErrOffsetBound) {
		if r, lerr := t.load(ctx, customerID); lerr == nil {
			return r, err
		}
	}
	if err != nil {
		return Reading{}, fmt.Errorf("advance the sandbox clock of %s: %w", r.TenantID, err)
	}
	now := t.base.Now()
	t.remember(customerID, r.TenantID, off, now)
	t.mu.Lock()
	wake := t.onAdvance
	t.mu.Unlock()
	for _, fn := range wake {
		fn()
	}
	return Reading{TenantID: r.TenantID, Now: now.Add(off), Offset: off}, nil
}

// Reset brings the clock of customerID's tenant back to the base time.
func (t *Tenants) Reset(ctx context.Context, customerID string) (Reading, error) {
	r, err := t.Read(ctx, customerID)
	if err != nil {
		return Reading{}, err
	}
	if err := t.store.ResetTenantClock(ctx, r.TenantID); err != nil {
		return Reading{}, fmt.Errorf("reset the sandbox clock of %s: %w", r.TenantID, err)
	}
	now := t.base.Now()
	t.remember(customerID, r.TenantID, 0, now)
	return Reading{TenantID: r.TenantID, Now: now}, nil
}

// OnAdvance registers fn, called after each advance made through t, so that
// a worker looks for what became due at once instead of at its next poll.
// fn must not block.
func (t *Tenants) OnAdvance(fn func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.onAdvance = append(t.onAdvance, fn)
}

// remember caches customerID's tenant and that tenant's offset.
func (t *Tenants) remember(customerID, top string, off time.Duration, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.tops) >= maxCached {
		t.tops = map[string]string{}
	}
	if len(t.offsets) >= maxCached {
		t.offsets = map[string]cachedOffset{}
	}
	t.tops[customerID] = top
	t.offsets[top] = cachedOffset{offset: off, read: at}
}

// Forget drops every cached offset and tenant, for after the sandbox's
// tables were replaced (reset, restore): the next read goes to the store.
// Other instances see the change within their cache's TTL.
func (t *Tenants) Forget() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.tops, t.offsets = map[string]string{}, map[string]cachedOffset{}
}
