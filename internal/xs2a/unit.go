package xs2a

import (
	"context"
	"errors"
	"fmt"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/job"
	"github.com/bankrail/bankrail/internal/payment"
)

// Unit is what the connector writes inside a payment's unit of work
// (payment.Also): the store's transaction implements it beside
// payment.Repos.
type Unit interface {
	// Initiations are the initiations inside the unit of work.
	Initiations() Initiations
	// Jobs enqueues jobs inside the unit of work.
	Jobs() job.Enqueuer
}

// Initiations writes initiations inside a unit of work.
type Initiations interface {
	// Save records in, or, when the payment has an initiation already,
	// keeps that one and returns it with false.
	Save(ctx context.Context, in Initiation) (Initiation, bool, error)
	// EndPoll removes the poll job of a payment that waits for its turn
	// (not one that runs now): the payment no longer waits for its bank.
	EndPoll(ctx context.Context, paymentID string) error
}

// errNoUnit is the wiring error of a unit of work that is not a Unit.
var errNoUnit = errors.New("xs2a: the payment's unit of work cannot record an initiation")

// unitOf is the connector's view of a payment's unit of work.
func unitOf(r payment.Repos) (Unit, error) {
	u, ok := r.(Unit)
	if !ok {
		return nil, errNoUnit
	}
	return u, nil
}

// Open is Start for a payment the payer brings to its bank (p, read and
// checked by the caller: NEW_PAYMENT, or at this bank): the payment is
// initiated at the bank first, then move (payment.Service.AtBankAlso or
// GoToBankAlso for this payment and bank) records the move to BANK_REDIRECT,
// the initiation and its poll job in one unit of work. A payment initiated
// already (a second visit) is not initiated again; one that ended is
// returned as it is. It returns the payment and where the payer goes when
// it is at the bank.
func (c *Connector) Open(ctx context.Context, a bank.Authorisation, p payment.Payment,
	move func(context.Context, payment.Also) (payment.Payment, error)) (payment.Payment, string, error) {
	if p.Status != payment.StatusNew {
		return c.moved(ctx, a, move)
	}
	switch _, err := c.Store.Initiation(ctx, a.PaymentID); {
	case err == nil:
		return c.moved(ctx, a, move) // initiated already
	case !errs.Is(err, errs.NotFound):
		return payment.Payment{}, "", err
	}
	in, jobs, err := c.initiation(ctx, a, p)
	if err != nil {
		return payment.Payment{}, "", err
	}
	if in.PaymentID == "" { // the bank did not take it: the payer is sent back, where Answer ends it
		moved, err := move(ctx, nil)
		return moved, failed(a.ReturnURL), err
	}
	saved, ran := in, false
	moved, err := move(ctx, func(ctx context.Context, r payment.Repos, ch payment.Change) error {
		if ch.Payment.Status != payment.StatusBankRedirect {
			return nil
		}
		u, err := unitOf(r)
		if err != nil {
			return err
		}
		var fresh bool
		if saved, fresh, err = u.Initiations().Save(ctx, in); err != nil || !fresh {
			ran = err == nil
			return err
		}
		ran = true
		return u.Jobs().Enqueue(ctx, jobs...)
	})
	switch {
	case err != nil:
		return payment.Payment{}, "", err
	case moved.Status != payment.StatusBankRedirect:
		return moved, "", nil // it ended meanwhile (a timed move): the bank's initiation is never authorised
	case !ran: // another request moved it meanwhile: the first initiation recorded wins
		if saved, err = c.Store.SaveInitiation(ctx, in, jobs...); err != nil {
			return payment.Payment{}, "", err
		}
	}
	return moved, c.address(a, saved), nil
}

// moved moves the payment (when it may) without initiating it, and leads
// a payment at the bank to its initiation (Start).
func (c *Connector) moved(ctx context.Context, a bank.Authorisation,
	move func(context.Context, payment.Also) (payment.Payment, error)) (payment.Payment, string, error) {
	p, err := move(ctx, nil)
	if err != nil || p.Status != payment.StatusBankRedirect {
		return p, "", err
	}
	address, err := c.Start(ctx, a)
	return p, address, err
}

// initiation initiates p at a's bank and returns the initiation to record
// with its poll job; an initiation without PaymentID when the payment
// cannot be initiated or the bank did not take it (logged).
func (c *Connector) initiation(ctx context.Context, a bank.Authorisation, p payment.Payment) (Initiation, []job.Job, error) {
	b, ok := c.Banks[a.Bank.ID]
	if !ok {
		return Initiation{}, nil, fmt.Errorf("xs2a: bank %s is not in the directory", a.Bank.ID)
	}
	body, err := initiationOf(p, c.Creditor)
	if err != nil {
		c.Log.WarnContext(ctx, "the payment cannot be initiated at its bank", "payment", p.ID, "bank", b.ID, "err", err)
		return Initiation{}, nil, nil
	}
	h := Headers{RequestID: RequestID(p.ID), PSUIPAddress: psuIP(p, a), RedirectURI: a.ReturnURL,
		NokRedirectURI: withParam(a.ReturnURL, "nok", "1"), RedirectPreferred: !b.Decoupled}
	resp, err := c.initiate(ctx, b, h, body)
	if err != nil {
		c.Log.WarnContext(ctx, "the bank did not take the payment initiation", "payment", p.ID, "bank", b.ID, "err", err)
		return Initiation{}, nil, nil
	}
	tenant, now, err := clock.UnitTenant(ctx, c.Clock, p.CustomerID)
	if err != nil {
		return Initiation{}, nil, err
	}
	in := Initiation{PaymentID: p.ID, BankID: b.ID, Product: b.product(), RequestID: h.RequestID, ASPSPPaymentID: resp.PaymentID,
		Status: resp.TransactionStatus, Reason: Reason(resp.TPPMessages), CreatedAt: now, UpdatedAt: now}
	if resp.Links.SCARedirect != nil {
		in.SCARedirect = resolve(b.Client.BaseURL, resp.Links.SCARedirect.Href)
	}
	in.Approach, in.PSUMessage = approachOf(resp), truncate(resp.PSUMessage, 500)
	poll, err := pollJob(p.ID, tenant, now.Add(PollFirst))
	if err != nil {
		return Initiation{}, nil, err
	}
	return in, []job.Job{poll}, nil
}

// EndPolls is the payment.Also, run in every move's unit of work, that
// ends the poll job of a payment the bank's word made final (COMPLETED or
// later): the poll would only find it so and end (Poll). A payment that
// ends otherwise keeps its poll, which looks once more at what its bank
// says.
func EndPolls(ctx context.Context, r payment.Repos, c payment.Change) error {
	waiting := c.From == payment.StatusBankRedirect || c.From == payment.StatusDelayedAtBank
	if !waiting || c.Payment.Status.Flow() != payment.FlowFinished {
		return nil
	}
	u, err := unitOf(r)
	if err != nil {
		return err
	}
	return u.Initiations().EndPoll(ctx, c.Payment.ID)
}
