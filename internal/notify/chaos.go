package notify

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/notification"
)

// Chaos is an application's webhook chaos (sandbox only): how delivery
// misbehaves on purpose, like the real world, so that a merchant can prove
// its receiver. The zero value is normal delivery. Each percentage is the
// share of notifications a behaviour picks; the pick is a seeded choice per
// notification id (Picks), so a run with the same ids and seed repeats.
type Chaos struct {
	DuplicatePercent              int   // delivered twice: a second signed POST of the same id after a success
	DelayPercent                  int   // first attempt held back DelaySeconds on the tenant's clock
	DelaySeconds                  int64 // how long a delayed notification waits
	ReorderPercent                int   // held until a later notification of another payment is delivered
	CompletedAfterReceivedPercent int   // a gateway COMPLETED held until the payment's payment_received is delivered (rule 1)
	Seed                          int64 // the seed of the choices
}

// Chaos markers: what chaos did, in the delivery log (a notification's
// chaos list, an attempt's chaos) and in Picks.
const (
	ChaosDuplicate              = "duplicate"
	ChaosDelayed                = "delayed"
	ChaosReordered              = "reordered"
	ChaosCompletedAfterReceived = "completedAfterReceived"
)

// Bounds of the settings.
const (
	MaxChaosDelay = 7 * 24 * time.Hour // DelaySeconds at most
	// HoldMax is how long a reordered or rule-1 notification waits at most
	// (tenant clock) for the delivery that releases it.
	HoldMax = time.Minute
)

// Active reports whether any behaviour is on.
func (c Chaos) Active() bool {
	return c.DuplicatePercent > 0 || c.DelayPercent > 0 || c.ReorderPercent > 0 || c.CompletedAfterReceivedPercent > 0
}

// Validate checks the settings, naming each field as the API does.
func (c Chaos) Validate() error {
	var v errs.Validation
	for _, p := range []struct {
		name string
		n    int
	}{{"duplicatePercent", c.DuplicatePercent}, {"delayPercent", c.DelayPercent}, {"reorderPercent", c.ReorderPercent},
		{"completedAfterReceivedPercent", c.CompletedAfterReceivedPercent}} {
		switch {
		case p.n < 0:
			v.Add(errs.TooLow, p.name, "%s must be between 0 and 100.", p.name)
		case p.n > 100:
			v.Add(errs.TooHigh, p.name, "%s must be between 0 and 100.", p.name)
		}
	}
	maxDelay := int64(MaxChaosDelay / time.Second)
	switch {
	case c.DelaySeconds < 0:
		v.Add(errs.TooLow, "delaySeconds", "delaySeconds must be between 1 and %d.", maxDelay)
	case c.DelaySeconds > maxDelay:
		v.Add(errs.TooHigh, "delaySeconds", "delaySeconds must be at most %d (7 days).", maxDelay)
	case c.DelayPercent > 0 && c.DelaySeconds == 0:
		v.Add(errs.ValueRequired, "delaySeconds", "delaySeconds is required when delayPercent is above 0: how long a delayed notification waits on the sandbox clock.")
	}
	if c.Seed < 0 {
		v.Add(errs.TooLow, "seed", "seed must be 0 or more.")
	}
	return v.Err()
}

// Picks reports whether the behaviour named marker picks the notification
// id under seed at percent: the first 8 bytes of SHA-256(seed|marker|id),
// modulo 100, below percent. It depends on nothing else (no global random
// source), so tests and receivers can predict it.
func Picks(seed int64, marker, id string, percent int) bool {
	if percent <= 0 {
		return false
	}
	if percent >= 100 {
		return true
	}
	sum := sha256.Sum256([]byte(strconv.FormatInt(seed, 10) + "|" + marker + "|" + id))
	return binary.BigEndian.Uint64(sum[:8])%100 < uint64(percent)
}

// ChaosStore reads and writes chaos settings and rotates secrets.
type ChaosStore interface {
	// NotificationChaos returns the settings of the application of clientID
	// (the zero Chaos when none were set) and its secret rotation.
	NotificationChaos(ctx context.Context, clientID string) (Chaos, Rotation, error)
	// SetNotificationChaos replaces the settings of the application of clientID.
	SetNotificationChaos(ctx context.Context, clientID string, c Chaos, now time.Time) error
	// RotateNotificationSecret makes secret the application's notification
	// secret; the one it replaces keeps signing until until.
	RotateNotificationSecret(ctx context.Context, clientID, secret string, until time.Time, now time.Time) (Rotation, error)
}

// Rotation is the state of an application's notification secret rotation.
type Rotation struct {
	Secret         string    // the secret now (returned by a rotation only)
	PreviousUntil  time.Time // zero when no previous secret signs
	PreviousSecret string    // never shown by the API
}

// Active reports whether the previous secret still signs at now.
func (r Rotation) Active(now time.Time) bool {
	return r.PreviousSecret != "" && now.Before(r.PreviousUntil)
}

// HasMarker reports whether the comma-separated list list holds marker.
func HasMarker(list, marker string) bool {
	for m := range strings.SplitSeq(list, ",") {
		if m == marker {
			return true
		}
	}
	return false
}

// Plan is what chaos does to one claimed notification before its attempt.
type Plan struct {
	Defer     bool      // send nothing now: wait until Until
	Until     time.Time // when the deferred notification is due again (tenant clock)
	Mark      string    // marker added to the notification
	Hold      string    // the hold it waits under (released early by another delivery); empty for a plain delay
	Rekey     bool      // leave its payment's order (so that later notifications of the payment may overtake it)
	Duplicate bool      // after a success, deliver it once more
}

// PlanChaos decides what c's chaos settings do to c at now (the tenant's
// clock). A behaviour applies at most once to a notification: a
// notification already marked by it is sent as usual.
func PlanChaos(c Claim, now time.Time) Plan {
	ch := c.Chaos
	if !ch.Active() || c.Type == notification.TypeTest {
		return Plan{}
	}
	first := c.Attempts-c.RetryFrom <= 1 // the first attempt since creation or redelivery
	p := Plan{Duplicate: Picks(ch.Seed, ChaosDuplicate, c.ID, ch.DuplicatePercent) && !HasMarker(c.ChaosMarks, ChaosDuplicate)}
	switch {
	case !first:
	case Picks(ch.Seed, ChaosCompletedAfterReceived, c.ID, ch.CompletedAfterReceivedPercent) &&
		!HasMarker(c.ChaosMarks, ChaosCompletedAfterReceived) && c.PaymentID != "" && gatewayCompleted(c.Notification):
		return Plan{Defer: true, Until: now.Add(HoldMax), Mark: ChaosCompletedAfterReceived, Hold: ChaosCompletedAfterReceived, Rekey: true}
	case Picks(ch.Seed, ChaosDelayed, c.ID, ch.DelayPercent) && !HasMarker(c.ChaosMarks, ChaosDelayed):
		return Plan{Defer: true, Until: now.Add(time.Duration(ch.DelaySeconds) * time.Second), Mark: ChaosDelayed}
	case Picks(ch.Seed, ChaosReordered, c.ID, ch.ReorderPercent) && !HasMarker(c.ChaosMarks, ChaosReordered) && !c.HoldingReorder:
		return Plan{Defer: true, Until: now.Add(HoldMax), Mark: ChaosReordered, Hold: ChaosReordered}
	}
	return p
}

// gatewayCompleted reports whether n is a gateway notification with status
// COMPLETED.
func gatewayCompleted(n Notification) bool {
	if n.Type != notification.TypeGateway || !bytes.Contains(n.Body, []byte(`"COMPLETED"`)) {
		return false
	}
	var g struct {
		Status string `json:"status"`
	}
	return json.Unmarshal(n.Body, &g) == nil && g.Status == notification.StatusCompleted
}

// Deferred is the outcome of a claim that chaos held back: no attempt,
// attempts given back, due again at p.Until.
func Deferred(c Claim, p Plan, now time.Time) Outcome {
	return Outcome{NotificationID: c.ID, ApplicationID: c.ApplicationID, LeaseID: c.LeaseID, Status: Pending,
		NextAttemptAt: p.Until, At: now, Deferred: &p}
}
