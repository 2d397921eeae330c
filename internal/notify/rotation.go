package notify

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
)

// MaxOverlap bounds a secret rotation's overlap.
const MaxOverlap = 30 * 24 * time.Hour

// Settings serves an application's notification settings: its sandbox
// chaos and its notification secret rotation.
type Settings struct {
	store ChaosStore
	clock clock.Clock
}

// NewSettings returns the settings service.
func NewSettings(store ChaosStore, clk clock.Clock) *Settings {
	return &Settings{store: store, clock: clk}
}

// Chaos returns the chaos settings and rotation of the application of
// clientID.
func (s *Settings) Chaos(ctx context.Context, clientID string) (Chaos, Rotation, error) {
	if _, err := identity.Authorize(ctx, identity.AppRead); err != nil {
		return Chaos{}, Rotation{}, err
	}
	return s.store.NotificationChaos(ctx, clientID)
}

// SetChaos validates and replaces the chaos settings of the application of
// clientID.
func (s *Settings) SetChaos(ctx context.Context, clientID string, c Chaos) (Chaos, Rotation, error) {
	if _, err := identity.Authorize(ctx, identity.SandboxAct); err != nil {
		return Chaos{}, Rotation{}, err
	}
	if err := c.Validate(); err != nil {
		return Chaos{}, Rotation{}, err
	}
	// basetime: the settings' own bookkeeping (updated_at), shown to no one
	if err := s.store.SetNotificationChaos(ctx, clientID, c, clock.Base(s.clock)); err != nil {
		return Chaos{}, Rotation{}, err
	}
	return s.store.NotificationChaos(ctx, clientID)
}

// RotateSecret gives the application of clientID (of customerID) a new
// random notification secret. For overlap (on the tenant's clock) the
// secret it replaces keeps signing too: X-Service-Signed with it and
// X-Service-Signed-Next with the new one; then only the new one signs.
func (s *Settings) RotateSecret(ctx context.Context, customerID, clientID string, overlap time.Duration) (Rotation, error) {
	if _, err := identity.Authorize(ctx, identity.AppChange); err != nil {
		return Rotation{}, err
	}
	var v errs.Validation
	switch {
	case overlap < 0:
		v.Add(errs.TooLow, "overlapSeconds", "overlapSeconds must be 0 (no overlap) or more.")
	case overlap > MaxOverlap:
		v.Add(errs.TooHigh, "overlapSeconds", "overlapSeconds must be at most %d (30 days).", int64(MaxOverlap/time.Second))
	}
	if err := v.Err(); err != nil {
		return Rotation{}, err
	}
	now, err := clock.For(ctx, s.clock, customerID)
	if err != nil {
		return Rotation{}, err
	}
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return Rotation{}, err
	}
	return s.store.RotateNotificationSecret(ctx, clientID, hex.EncodeToString(b), now.Add(overlap), now)
}
