package xs2a

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/job"
	"github.com/bankrail/bankrail/internal/payment"
)

// KindPoll is the job that reads a payment's status at its bank until the
// bank's final word has moved the payment (or the payment ended otherwise).
const KindPoll = "xs2a.status"

// Poll timing on the payment's tenant's clock: the first read PollFirst
// after the initiation, then a tenth of the time since it (between
// PollFirst and PollMax). PollAttempts bounds the job: at these intervals
// it outlasts payment.BankSilence, after which the payment has ended anyway.
const (
	PollFirst    = 5 * time.Second
	PollMax      = 15 * time.Minute
	PollAttempts = 400
)

// PollArgs are the poll job's arguments.
type PollArgs struct {
	PaymentID string `json:"paymentId"`
}

// pollJob is the poll job of a payment, due at at on tenant's clock.
func pollJob(paymentID, tenant string, at time.Time) (job.Job, error) {
	j, err := job.New(KindPoll, PollArgs{PaymentID: paymentID}, at)
	if err != nil {
		return job.Job{}, err
	}
	j.TenantID, j.MaxAttempts, j.UniqueKey = tenant, PollAttempts, PollKey(paymentID)
	j.Later = true // PollFirst away: the worker's poll (1 s) or a clock advance finds it
	return j, nil
}

// PollKey is the unique key of the poll job of payment id.
func PollKey(paymentID string) string { return KindPoll + ":" + paymentID }

// errNotFinal is why the poll job runs again.
var errNotFinal = errors.New("the bank has not given its final answer yet")

// Poll is the handler of KindPoll: it reads the status at the bank and
// applies the bank's final word (InBackground) to a payment that still
// waits for it (BANK_REDIRECT: the payer never came back; DELAYED_AT_BANK).
// A payment that ended meanwhile ends the job; if its bank reports it
// executed although bankrail ended it otherwise, that is logged as an
// error for an operator. Anything else runs again later.
func (c *Connector) Poll(ctx context.Context, args PollArgs) error {
	in, err := c.Store.Initiation(ctx, args.PaymentID)
	if errs.Is(err, errs.NotFound) {
		return job.Cancel(fmt.Errorf("payment %s has no initiation at a bank", args.PaymentID))
	}
	if err != nil {
		return err
	}
	p, err := c.Payments.GetByID(ctx, in.PaymentID)
	if errs.Is(err, errs.NotFound) {
		return job.Cancel(fmt.Errorf("payment %s is gone", in.PaymentID))
	}
	if err != nil {
		return err
	}
	waiting := p.Status == payment.StatusBankRedirect || p.Status == payment.StatusDelayedAtBank
	if !waiting && p.Status.Flow() == payment.FlowFinished {
		return nil // the bank's word made it COMPLETED (or later): nothing to watch
	}
	r := c.read(ctx, in, 2)
	c.record(ctx, in, r)
	if !waiting {
		if r.Phase == Accepted {
			c.Log.ErrorContext(ctx, "the bank reports a payment executed that bankrail ended otherwise: look at it",
				"payment", p.ID, "bank", in.BankID, "status", p.Status, "transactionStatus", r.Code)
		}
		return nil
	}
	if outcome, ok := InBackground(p.Status, r); ok {
		o, _ := payment.ParseBankOutcome(outcome)
		_, err := c.Move(ctx, p.ID, p.CheckoutToken, in.BankID, o, "")
		if errs.Is(err, errs.Conflict) || errs.Is(err, errs.NotModifiable) {
			return nil // moved meanwhile (the payer's return, a timed move): the next read decides nothing more
		}
		return err
	}
	now, err := clock.For(ctx, c.Clock, p.CustomerID)
	if err != nil {
		return err
	}
	wait := min(max(now.Sub(in.CreatedAt)/10, PollFirst), PollMax)
	return job.RetryAt(now.Add(wait), fmt.Errorf("%w (status %q %s)", errNotFinal, r.Code, r.Reason))
}
