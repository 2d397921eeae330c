package sandbox

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/identity"
)

// Clocks are the sandbox's clock controls for a caller (GET and POST
// /sandbox/clock..., the console's clock page): read, advance and reset the
// clock of the caller's tenant, each after the caller's permission.
type Clocks struct{ tenants *clock.Tenants }

// NewClocks returns the controls of tenants' clocks.
func NewClocks(tenants *clock.Tenants) *Clocks { return &Clocks{tenants: tenants} }

// Read reads the clock of customerID's tenant.
func (c *Clocks) Read(ctx context.Context, customerID string) (clock.Reading, error) {
	if _, err := identity.Authorize(ctx, identity.SandboxAct); err != nil {
		return clock.Reading{}, err
	}
	return c.tenants.Read(ctx, customerID)
}

// Advance moves the clock of customerID's tenant forward by d.
func (c *Clocks) Advance(ctx context.Context, customerID string, d time.Duration) (clock.Reading, error) {
	if _, err := identity.Authorize(ctx, identity.SandboxAct); err != nil {
		return clock.Reading{}, err
	}
	return c.tenants.Advance(ctx, customerID, d)
}

// Reset brings the clock of customerID's tenant back to the base time.
func (c *Clocks) Reset(ctx context.Context, customerID string) (clock.Reading, error) {
	if _, err := identity.Authorize(ctx, identity.SandboxAct); err != nil {
		return clock.Reading{}, err
	}
	return c.tenants.Reset(ctx, customerID)
}
