// Package clock is the one source of time in bankrail. Production uses the
// wall clock; the sandbox uses Tenants, one virtual clock per top-level
// customer whose offset is kept in the database so that every instance
// agrees; tests use Fake as the base.
package clock

import (
	"sync"
	"time"
)

// Clock tells the time. Every time rule in bankrail asks a Clock.
type Clock interface {
	Now() time.Time
}

// Real is the wall clock, in UTC.
type Real struct{}

// Now returns the current wall-clock time in UTC.
func (Real) Now() time.Time { return time.Now().UTC() }

// Fake is a manually driven clock for tests. The zero value is not usable;
// use NewFake.
type Fake struct {
	mu        sync.Mutex
	now       time.Time
	onAdvance []func()
}

// NewFake returns a Fake clock set to t.
func NewFake(t time.Time) *Fake { return &Fake{now: t.UTC()} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Advance moves the fake time forward by d.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
	f.advanced()
}

// Set sets the fake time.
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	f.now = t.UTC()
	f.mu.Unlock()
	f.advanced()
}

// OnAdvance registers fn, called after each Advance and Set, so that a
// worker looks for what became due at once instead of at its next poll
// (as Tenants.OnAdvance does for a tenant's clock). fn must not block.
func (f *Fake) OnAdvance(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onAdvance = append(f.onAdvance, fn)
}

// advanced calls the OnAdvance functions, outside the lock (they may read
// the time).
func (f *Fake) advanced() {
	f.mu.Lock()
	fns := f.onAdvance
	f.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}
