package payment

import (
	"slices"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
)

// Settled moves a RECEIVED expected payment p to SETTLED at time at: a
// SETTLEMENT payout of its Connect account paid it out (decisions.md,
// Connect: SETTLED). The change carries the history entry (the payment's
// event) and the notifications of the move: none, as no notification
// names SETTLED. The caller saves it with Repository.Move in the payout's
// unit of work.
func (l *Lifecycle) Settled(p Payment, at time.Time) (Change, error) {
	if !p.Expected() {
		return Change{}, errs.E(errs.Conflict, "The payment is not expected on a Connect account.")
	}
	p.History = slices.Clone(p.History)
	c := Change{From: p.Status, Stored: len(p.History)}
	if err := l.step(&c, &p, StatusSettled, at, "", ""); err != nil {
		return Change{}, err
	}
	c.Payment = p
	return c, nil
}
