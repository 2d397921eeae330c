package clock

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// OffsetStore persists the sandbox clock offset so that several instances
// share one virtual time.
type OffsetStore interface {
	// ClockOffset returns the current offset.
	ClockOffset(ctx context.Context) (time.Duration, error)
	// AdvanceClock adds d to the offset atomically and returns the new offset.
	AdvanceClock(ctx context.Context, d time.Duration) (time.Duration, error)
}

// MaxAdvance bounds one advance of the virtual clock.
const MaxAdvance = 400 * 24 * time.Hour

// Virtual is the sandbox clock: a base clock plus an offset that only grows.
// The offset is read from the store by Load (the app calls it periodically,
// so that an advance made by another instance is seen within a second) and
// updated at once by Advance.
type Virtual struct {
	base   Clock
	store  OffsetStore
	offset atomic.Int64
}

// NewVirtual returns a Virtual clock over base. Call Load before use, and
// again periodically to see advances made by other instances.
func NewVirtual(base Clock, store OffsetStore) *Virtual {
	return &Virtual{base: base, store: store}
}

// Now returns base time plus the offset.
func (v *Virtual) Now() time.Time {
	return v.base.Now().Add(time.Duration(v.offset.Load()))
}

// Offset returns how far the virtual clock is ahead of its base.
func (v *Virtual) Offset() time.Duration { return time.Duration(v.offset.Load()) }

// Load reads the offset from the store.
func (v *Virtual) Load(ctx context.Context) error {
	off, err := v.store.ClockOffset(ctx)
	if err != nil {
		return fmt.Errorf("load clock offset: %w", err)
	}
	v.observe(off)
	return nil
}

// Advance moves the virtual clock forward by d for every instance.
func (v *Virtual) Advance(ctx context.Context, d time.Duration) (time.Time, error) {
	if d <= 0 || d > MaxAdvance {
		return time.Time{}, fmt.Errorf("advance of %s is out of range (0, %s]", d, MaxAdvance)
	}
	off, err := v.store.AdvanceClock(ctx, d)
	if err != nil {
		return time.Time{}, fmt.Errorf("advance clock: %w", err)
	}
	v.observe(off)
	return v.Now(), nil
}

// observe raises the local offset to off; the offset never goes back.
func (v *Virtual) observe(off time.Duration) {
	for {
		cur := v.offset.Load()
		if int64(off) <= cur || v.offset.CompareAndSwap(cur, int64(off)) {
			return
		}
	}
}
