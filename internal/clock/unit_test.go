package clock

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A unit's time is its customer's tenant's clock at the store's precision;
// Base and an empty customer are the base time, at the same precision; an
// unknown customer is an error that names it.
func TestUnitTimeIsTheTenantsAndBaseIsNot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	base := NewFake(start.Add(1500 * time.Nanosecond)) // not whole microseconds
	c := NewTenants(base, newMemTenants(), time.Minute)
	if _, err := c.Advance(ctx, "shop", time.Hour); err != nil {
		t.Fatal(err)
	}
	stored := start.Add(time.Microsecond)
	for _, tc := range []struct {
		name     string
		customer string
		want     time.Time
	}{
		{"a merchant: its PSP's clock", "shop", stored.Add(time.Hour)},
		{"the PSP", "psp", stored.Add(time.Hour)},
		{"another tenant", "other", stored},
		{"no customer: the base time", "", stored},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := UnitTime(ctx, c, tc.customer)
			if err != nil || !got.Equal(tc.want) || got.Location() != time.UTC {
				t.Fatalf("UnitTime(%q) = %s, %v; want %s", tc.customer, got, err, tc.want)
			}
		})
	}
	if got := Base(c); !got.Equal(stored) {
		t.Fatalf("Base = %s, want %s", got, stored)
	}
	if got, err := UnitTime(ctx, base, "shop"); err != nil || !got.Equal(stored) {
		t.Fatalf("UnitTime on a clock without tenants = %s, %v; want the base time %s", got, err, stored)
	}
	if _, err := UnitTime(ctx, c, "nobody"); err == nil || !strings.Contains(err.Error(), "nobody") {
		t.Fatalf("an unknown customer: %v", err)
	}
}

// UnitTenant names the tenant whose clock the time is on, and no tenant on
// a clock without tenants.
func TestUnitTenantNamesTheTenant(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	base := NewFake(start)
	c := NewTenants(base, newMemTenants(), time.Minute)
	if _, err := c.Advance(ctx, "psp", time.Hour); err != nil {
		t.Fatal(err)
	}
	if tenant, now, err := UnitTenant(ctx, c, "shop"); err != nil || tenant != "psp" || !now.Equal(start.Add(time.Hour)) {
		t.Fatalf("UnitTenant(shop) = %q, %s, %v", tenant, now, err)
	}
	if tenant, now, err := UnitTenant(ctx, base, "shop"); err != nil || tenant != "" || !now.Equal(start) {
		t.Fatalf("UnitTenant on a plain clock = %q, %s, %v", tenant, now, err)
	}
	if _, _, err := UnitTenant(ctx, c, "nobody"); err == nil || !strings.Contains(err.Error(), "nobody") {
		t.Fatalf("an unknown customer: %v", err)
	}
}
