package channel

import (
	"context"
	"fmt"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/iso"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/money"
	"github.com/bankrail/bankrail/internal/timedmove"
)

// TimedMoves are the deposits' confirmations, due on each tenant's clock,
// for timedmove.Run. A confirmation is saved only over a PROCESSING
// deposit, so it happens once; a deposit another instance confirmed first
// is not an error.
func (s *Service) TimedMoves() []timedmove.Source {
	return []timedmove.Source{{
		Name: "deposit confirmation",
		Due: func(ctx context.Context, now time.Time, limit int) ([]string, error) {
			return s.payments.DueToConfirm(ctx, now.Add(-ConfirmAfter), limit)
		},
		Apply: timedmove.Settle(s.payments.GetByID, s.settle, func(err error) bool { return errs.Is(err, errs.Conflict) }),
	}}
}

// RunTimedMoves confirms every deposit whose confirmations are due (tests
// and tools; the background worker runs TimedMoves with the other
// packages').
func (s *Service) RunTimedMoves(ctx context.Context) error {
	return timedmove.Run(ctx, s.clock, s.TimedMoves()...)
}

// settle confirms p when it is PROCESSING and its confirmations are due on
// its tenant's clock; otherwise p is returned as it is.
func (s *Service) settle(ctx context.Context, p Payment) (Payment, error) {
	if p.Status != Processing {
		return p, nil
	}
	now, err := clock.UnitTime(ctx, s.clock, p.CustomerID)
	if err != nil {
		return Payment{}, err
	}
	if now.Before(p.DetectedAt.Add(ConfirmAfter)) {
		return p, nil
	}
	ch, err := s.channels.GetByID(ctx, p.ChannelID)
	if err != nil {
		return Payment{}, err
	}
	var done Payment
	err = s.inTx(ctx, func(r Repos) error {
		var err error
		done, err = Confirm(ctx, r, ch, p, now)
		return err
	})
	if errs.Is(err, errs.Conflict) { // confirmed meanwhile by another reader or worker
		return s.payments.GetByID(ctx, p.ID)
	}
	return done, err
}

// Confirm completes p, seen confirmed at time at, inside one unit of work: the conversion
// at the sandbox rate, the TOP_UP credit on the customer's Connect account
// in the channel's currency (opened when it has none), the payment saved
// COMPLETED, and the channel_payment_completed notification. A deposit
// worth less than half a minor unit is COMPLETED with a credit of 0 and no
// ledger transaction.
func Confirm(ctx context.Context, r Repos, ch Channel, p Payment, at time.Time) (Payment, error) {
	rate, ok := SandboxRate(ch.Token, ch.Currency)
	cur, known := iso.CurrencyOf(ch.Currency)
	if !ok || !known {
		return Payment{}, fmt.Errorf("channel %s: no rate for %s/%s", ch.ID, ch.Token, ch.Currency)
	}
	minor, err := Convert(p.Paid, rate.Value, cur.Decimals)
	if err != nil {
		return Payment{}, err
	}
	// The 12th confirmation lands ConfirmAfter after the detection; at (the
	// time it is seen) is when the credit is posted.
	p.Status, p.ConfirmedAt, p.UpdatedAt = Completed, p.DetectedAt.Add(ConfirmAfter), at
	p.Credited, p.Rate = &Credit{Amount: minor, Currency: ch.Currency}, &rate
	if minor > 0 {
		p.TransactionID = ids.New()
	}
	if err := r.ChannelPayments().Complete(ctx, p); err != nil {
		return Payment{}, err
	}
	if minor > 0 {
		if err := credit(ctx, r, ch, p, minor, at); err != nil {
			return Payment{}, err
		}
	}
	msg, err := message(ch, p, EventCompleted)
	if err != nil {
		return Payment{}, err
	}
	return p, r.Outbox().Enqueue(ctx, at, msg)
}

// credit records the TOP_UP of minor units on the channel customer's
// Connect account, opening the account when there is none.
func credit(ctx context.Context, r Repos, ch Channel, p Payment, minor int64, at time.Time) error {
	acct, err := r.Ledger().ConnectAccount(ctx, ch.CustomerID, ch.Currency)
	if errs.Is(err, errs.NotFound) {
		id := ids.New()
		iban := ledger.GenerateIBAN(id, ch.Currency)
		acct = ledger.Account{ID: id, CustomerID: ch.CustomerID, Type: ledger.Connected, Status: ledger.AccountActive,
			Currency: ch.Currency, IBAN: iban, Country: iso.IBANCountry(iban), CreatedAt: at}
		err = r.Ledger().CreateAccount(ctx, acct)
	}
	if err != nil {
		return err
	}
	m, err := money.New(minor, ch.Currency)
	if err != nil {
		return err
	}
	tx := ledger.Transaction{ID: p.TransactionID, AccountID: acct.ID, CustomerID: acct.CustomerID, Type: ledger.TypeTopUp,
		Operation: ledger.Incoming, Status: ledger.TxCompleted, Amount: m, Reference: p.ID,
		Counterparty: ledger.Counterparty{Name: string(ch.Token) + " " + string(ch.Network) + " deposit"},
		CreatedAt:    at, UpdatedAt: at}
	e, err := ledger.Open(tx, ids.New())
	if err != nil {
		return err
	}
	return r.Ledger().Record(ctx, tx, e)
}
