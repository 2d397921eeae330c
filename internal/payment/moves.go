package payment

import (
	"context"
	"crypto/subtle"
	"strings"
	"unicode"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/timedmove"
)

// MaxHolderNameLength bounds the account holder name a sandbox user makes
// the mock bank report.
const MaxHolderNameLength = 140

// Lifecycle is the status machine the service applies.
func (s *Service) Lifecycle() *Lifecycle { return s.life }

// Authorise plays a sandbox outcome on a payment of viewerCustomerID (POST
// /sandbox/payments/{id}/authorise). holder, when not empty, is the account
// holder name the bank reports.
func (s *Service) Authorise(ctx context.Context, viewerCustomerID, id string, o Outcome, holder string) (Payment, error) {
	if _, err := identity.Authorize(ctx, identity.SandboxAct); err != nil {
		return Payment{}, err
	}
	if err := checkHolderName("accountHolderName", holder); err != nil {
		return Payment{}, err
	}
	p, err := s.Get(ctx, viewerCustomerID, id)
	if err != nil {
		return Payment{}, err
	}
	return s.apply(ctx, p, Event{Outcome: o, HolderName: holder})
}

// checkHolderName validates an account holder name given by a sandbox user.
func checkHolderName(path, name string) error {
	var v errs.Validation
	switch {
	case len([]rune(name)) > MaxHolderNameLength:
		v.Add(errs.TooLong, path, "%s must be at most %d characters long.", path, MaxHolderNameLength)
	case strings.ContainsFunc(name, unicode.IsControl):
		v.Add(errs.InvalidFormat, path, "%s must not contain control characters.", path)
	}
	return v.Err()
}

// ForPayer reads the payment behind the payer's pages: the token must be
// the payment's checkout token or one of its link tokens that has not
// expired (else RESOURCE_NOT_FOUND, as for a missing payment). A timed move
// that is due is applied first, so the payer sees the payment as it is.
func (s *Service) ForPayer(ctx context.Context, id, token string) (Payment, error) {
	notFound := errs.NotFoundf("This payment link is not valid.")
	if _, err := uuid.Parse(id); err != nil || token == "" {
		return Payment{}, notFound
	}
	p, err := s.payments.GetByID(ctx, strings.ToLower(id))
	switch {
	case errs.Is(err, errs.NotFound):
		return Payment{}, notFound
	case err != nil:
		return Payment{}, err
	case subtle.ConstantTimeCompare([]byte(p.CheckoutToken), []byte(token)) != 1:
		now, err := clock.UnitTime(ctx, s.clock, p.CustomerID)
		if err != nil {
			return Payment{}, err
		}
		if _, err := checkLink(p, token, now); err != nil {
			return Payment{}, err
		}
	}
	return s.settle(ctx, p)
}

// GoToBank records the bank the payer picked on the hosted checkout and
// moves the payment to BANK_REDIRECT. Sending the same choice again (the
// back button) changes nothing.
func (s *Service) GoToBank(ctx context.Context, id, token, bankID string) (Payment, error) {
	return s.GoToBankAlso(ctx, id, token, bankID, nil)
}

// GoToBankAlso is GoToBank with also run in the unit of work of the move
// to BANK_REDIRECT (none when the payment does not move).
func (s *Service) GoToBankAlso(ctx context.Context, id, token, bankID string, also Also) (Payment, error) {
	p, err := s.ForPayer(ctx, id, token)
	if err != nil {
		return Payment{}, err
	}
	if p.Status == StatusBankRedirect && p.Scheme().InstitutionID == bankID {
		return p, nil
	}
	return s.apply(ctx, p, Event{BankID: bankID, Outcome: Outcome{StatusBankRedirect}}, also)
}

// AtBank is the payer arriving at bank bankID's authorisation page: a
// payment still NEW_PAYMENT (the api channel sends the payer straight
// there) moves to BANK_REDIRECT. The bank must be the payment's.
func (s *Service) AtBank(ctx context.Context, id, token, bankID string) (Payment, error) {
	return s.AtBankAlso(ctx, id, token, bankID, nil)
}

// AtBankOutcome is the payer's answer on the bank's page (approve, reject,
// cancel, a bank error or delay), with the account holder name the bank
// reports (empty: the payer's name).
func (s *Service) AtBankOutcome(ctx context.Context, id, token, bankID string, o Outcome, holder string) (Payment, error) {
	if err := checkHolderName("holder", holder); err != nil {
		return Payment{}, err
	}
	p, err := s.AtBank(ctx, id, token, bankID)
	if err != nil {
		return Payment{}, err
	}
	return s.apply(ctx, p, Event{Outcome: o, HolderName: holder})
}

// apply applies ev to p (a due timed move first) and saves the change,
// with also (when not nil) in its unit of work.
func (s *Service) apply(ctx context.Context, p Payment, ev Event, also ...Also) (Payment, error) {
	p, err := s.settle(ctx, p)
	if err != nil {
		return Payment{}, err
	}
	now, err := clock.UnitTime(ctx, s.clock, p.CustomerID)
	if err != nil {
		return Payment{}, err
	}
	c, err := s.life.Apply(p, ev, now)
	if err != nil {
		return Payment{}, err
	}
	if !c.Moved() {
		return c.Payment, nil
	}
	if err := s.save(ctx, c, also...); err != nil {
		return Payment{}, err
	}
	return c.Payment, nil
}

// save writes a change in one unit of work: the payment and its new
// history, only while it is still in c.From, the moves' notifications,
// then the work registered with OnMoves and also (nil ones skipped), and
// last, in the sandbox, the funds of an expected payment it completed.
func (s *Service) save(ctx context.Context, c Change, also ...Also) error {
	err := s.inTx(ctx, func(r Repos) error {
		if err := r.Payments().Move(ctx, c); err != nil {
			return err
		}
		if err := writeLedger(ctx, r, c.Ledger); err != nil {
			return err
		}
		if err := r.Outbox().Enqueue(ctx, c.Payment.UpdatedAt, c.Messages...); err != nil {
			return err
		}
		for _, fn := range append(s.onMoves[:len(s.onMoves):len(s.onMoves)], also...) {
			if fn == nil {
				continue
			}
			if err := fn(ctx, r, c); err != nil {
				return err
			}
		}
		return s.arrive(ctx, r, c)
	})
	if err == nil {
		s.observeMoves(c)
	}
	return err
}

// settle applies p's timed move when it is due on the clock of p's tenant.
// When another request or instance moved the payment meanwhile, it returns
// the payment as stored.
func (s *Service) settle(ctx context.Context, p Payment) (Payment, error) {
	now, err := clock.UnitTime(ctx, s.clock, p.CustomerID)
	if err != nil {
		return Payment{}, err
	}
	if !p.Due(now) {
		return p, nil
	}
	c, err := s.life.Apply(p, Event{Timed: true}, now)
	if err != nil {
		return Payment{}, err
	}
	err = s.save(ctx, c)
	if errs.Is(err, errs.Conflict) {
		return s.payments.GetByID(ctx, p.ID)
	}
	if err != nil {
		return Payment{}, err
	}
	return c.Payment, nil
}

// TimedMoves are the payments' timed moves (abandonments, the answers of
// delayed banks), due on each payment's tenant's clock, for timedmove.Run.
// A payment another request or instance moved first, or that is gone, is
// not an error.
func (s *Service) TimedMoves() []timedmove.Source {
	gone := func(err error) bool { return errs.Is(err, errs.NotFound) }
	return []timedmove.Source{{Name: "payment", Due: s.payments.Due, Apply: timedmove.Settle(s.payments.GetByID, s.settle, gone)}}
}

// RunTimedMoves applies every payment's timed move that is due (tests and
// tools; the background worker runs TimedMoves with the other packages').
func (s *Service) RunTimedMoves(ctx context.Context) error {
	return timedmove.Run(ctx, s.clock, s.TimedMoves()...)
}
