package payment

import (
	"slices"
	"time"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/notify"
)

// Event is something that happens to a payment: the payer picks a bank,
// the payer or the bank brings about an Outcome, or time passes.
type Event struct {
	Outcome    Outcome // the statuses to reach; empty with Timed
	Timed      bool    // apply the timed move that is due (abandonment, a delayed bank's answer)
	BankID     string  // the institution the payer picked (when the payment has none yet)
	HolderName string  // the account holder name the bank reports; default the payer's name
}

// Change is the result of an event: the payment after its moves, and the
// gateway notifications those moves send, to be written in the same
// transaction. The store applies it only while the payment is still in
// status From, so that a move is never applied twice.
type Change struct {
	From     Status
	Stored   int // how many entries of Payment.History were stored before the change
	Payment  Payment
	Messages []notify.Message
	Ledger   []LedgerWrite // money the change moves (Connect funds), written in the same unit of work
	funds    *Funds        // the funds that made the payment RECEIVED, for payment_received
	// Arrives, in the sandbox, are the funds the mock bank sends for the
	// expected payment the change completed: Service.save and Create hand
	// them to the IncomingBank in the change's unit of work.
	Arrives *Funds
}

// NewHistory are the history entries the change added.
func (c Change) NewHistory() []StatusUpdate { return c.Payment.History[c.Stored:] }

// Moved reports whether the change moved the payment.
func (c Change) Moved() bool { return c.Payment.Status != c.From }

// Lifecycle applies events to payments following the status machine.
type Lifecycle struct {
	banks        *bank.Registry
	waitForFunds bool // Config.WaitForFunds
}

// NewLifecycle returns the status machine over the bank registry (for the
// payer's bank in notifications and for the sandbox's default bank).
func NewLifecycle(banks *bank.Registry) *Lifecycle { return &Lifecycle{banks: banks} }

// Apply applies ev to p at time now. A timed move that is due happens
// first, at the time it was due: a payer cannot finish a payment that was
// already abandoned. It fails with CONFLICT or RESOURCE_NOT_MODIFIABLE when
// the table does not allow a move, and changes nothing then.
func (l *Lifecycle) Apply(p Payment, ev Event, now time.Time) (Change, error) {
	p.History = slices.Clone(p.History)
	c := Change{From: p.Status, Stored: len(p.History)}
	if p.Due(now) {
		if err := l.step(&c, &p, p.Next.To, p.Next.At, StatusCompleted, ""); err != nil {
			return Change{}, err
		}
	}
	if ev.Timed {
		if err := l.completedNow(&c, &p, false); err != nil {
			return Change{}, err
		}
		c.Payment = p
		return c, nil
	}
	if ev.BankID != "" {
		if err := l.chooseBank(&p, ev.BankID); err != nil {
			return Change{}, err
		}
	}
	noFunds := false
	for i, target := range ev.Outcome {
		if target == StatusNotReceived && p.Status == StatusCompleted {
			noFunds = true // the mock bank never sends the funds: NOT_RECEIVED after the timeframe
			continue
		}
		route, err := routeTo(p.Status, target)
		if err != nil {
			return Change{}, err
		}
		resolve := StatusCompleted
		switch {
		case i+1 < len(ev.Outcome):
			resolve = ev.Outcome[i+1]
		case target == StatusDelayedAtBank:
			resolve = StatusDelayedAtBank // the bank answers later, through its connector (BankSilence)
		}
		for _, st := range route {
			if err := l.step(&c, &p, st, now, resolve, ev.HolderName); err != nil {
				return Change{}, err
			}
		}
		if p.Status == StatusDelayedAtBank {
			break // what follows is the bank's answer, a timed move
		}
	}
	if err := l.completedNow(&c, &p, noFunds); err != nil {
		return Change{}, err
	}
	c.Payment = p
	return c, nil
}

// completedNow runs what follows COMPLETED (afterCompleted) when the
// change has just completed an expected payment.
func (l *Lifecycle) completedNow(c *Change, p *Payment, noFunds bool) error {
	if !p.Expected() || p.Status != StatusCompleted || c.From == StatusCompleted {
		return nil
	}
	return l.afterCompleted(c, p, noFunds)
}

// step makes one move and adds its notification.
func (l *Lifecycle) step(c *Change, p *Payment, to Status, at time.Time, resolve Status, holder string) error {
	if to == StatusBankRedirect && p.Scheme().InstitutionID == "" && !p.FromMandate() { // a mandate's payment goes to the payer's bank of the mandate
		b, ok := l.defaultBank(*p)
		if !ok {
			return errs.E(errs.Conflict, "No bank takes %s payments in the countries this payment allows.", p.System())
		}
		p.Request = p.Request.withInstitution(b.ID)
	}
	if (to == StatusAuthorisedByUser || to == StatusDelayedAtBank) && p.Sender == nil {
		if b, ok := l.banks.Get(p.Scheme().InstitutionID); ok {
			s := ReportedSender(*p, b, holder)
			p.Sender = &s
		}
	}
	if err := p.move(to, at, resolve); err != nil {
		return err
	}
	if to == StatusCompleted && p.Expected() {
		p.Next = l.notReceivedMove(*p, at)
	}
	if to == StatusReceived || to == StatusNotReceived {
		msg, err := l.connectMessage(*p, c.funds)
		if err != nil {
			return err
		}
		c.Messages = append(c.Messages, msg)
		return nil
	}
	msg, ok, err := l.gatewayMessage(*p)
	if err != nil {
		return err
	}
	if ok {
		c.Messages = append(c.Messages, msg)
	}
	return nil
}

// chooseBank records the institution the payer picked. A payment that
// names its bank (the merchant's choice, or the payer's once at the bank)
// keeps it.
func (l *Lifecycle) chooseBank(p *Payment, id string) error {
	if cur := p.Scheme().InstitutionID; cur == id {
		return nil
	} else if cur != "" {
		return errs.E(errs.Conflict, "This payment is made through another bank.")
	}
	b, ok := l.banks.Get(id)
	if !ok || !b.Supports(p.System()) || !p.Request.CountryAvailable(b.Country) {
		return errs.E(errs.Conflict, "The bank %s cannot be used for this payment.", id)
	}
	p.Request = p.Request.withInstitution(id)
	return nil
}

// defaultBank is the bank the sandbox uses when a scenario needs one and
// the payer has not picked any: the first that fits the payment.
func (l *Lifecycle) defaultBank(p Payment) (bank.Bank, bool) {
	for _, b := range l.banks.List(bank.Filter{System: p.System()}) {
		if p.Request.CountryAvailable(b.Country) {
			return b, true
		}
	}
	return bank.Bank{}, false
}

// Bank returns the payer's bank of p, if one is known.
func (l *Lifecycle) Bank(p Payment) (bank.Bank, bool) { return l.banks.Get(p.Scheme().InstitutionID) }
