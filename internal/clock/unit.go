package clock

import (
	"context"
	"fmt"
	"time"
)

// UnitTime is the time of one unit of work of customerID's use case: the
// clock of customerID's tenant (its sandbox clock in the sandbox), read
// once, at the precision the store keeps (UTC, whole microseconds). A use
// case reads it once, before its unit of work (or at its start, when the
// customer is known only from a row it reads), and stamps everything the
// unit writes with that one value: the change, its events, its
// notifications, its ledger entries. A group commit that runs the unit's
// closure again then writes the same times. An empty customerID (what
// belongs to no customer) is the base time.
//
// The tenant of a use case is that of its customer: the caller's own or
// one below it, which share the caller's top-level customer and so its
// clock.
func UnitTime(ctx context.Context, c Clock, customerID string) (time.Time, error) {
	t, err := For(ctx, c, customerID)
	if err != nil {
		return time.Time{}, fmt.Errorf("read the clock of customer %s: %w", customerID, err)
	}
	return Stored(t), nil
}

// UnitTenant is UnitTime with the id of the tenant whose clock it is, for
// what is due on that clock (a job's TenantID): "" on a clock without
// tenants (production's one clock).
func UnitTenant(ctx context.Context, c Clock, customerID string) (tenantID string, now time.Time, err error) {
	if t, ok := c.(tenantReader); ok && customerID != "" {
		r, err := t.Read(ctx, customerID)
		if err != nil {
			return "", time.Time{}, fmt.Errorf("read the clock of customer %s: %w", customerID, err)
		}
		return r.TenantID, Stored(r.Now), nil
	}
	now, err = UnitTime(ctx, c, customerID)
	return "", now, err
}

// tenantReader is a clock that names the tenant of a reading (Tenants).
type tenantReader interface {
	Read(ctx context.Context, customerID string) (Reading, error)
}

// Base is the base time of c (no tenant's offset) at the precision the
// store keeps: for what selects the rows of every tenant (due scans, whose
// SQL adds each row's tenant offset), leases, and what belongs to no
// tenant. Domain code calls it only with a "basetime:" comment saying why
// (see TestDomainCodeDoesNotReadTheBaseClock).
func Base(c Clock) time.Time { return Stored(c.Now()) }

// Stored is t at the precision the store keeps: UTC, whole microseconds.
func Stored(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }
