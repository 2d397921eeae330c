package payment

import (
	"context"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/iso"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/money"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/notification"
)

// ConnectAccounts finds the customer's ACTIVE Connect account in a
// currency that a payment pays into (ledger.Service.ReceivingAccount): the
// one its beneficiary names (IBAN, alias IBAN, or UK sort code and account
// number), or, without a beneficiary (payee nil), the customer's oldest.
type ConnectAccounts interface {
	ReceivingAccount(ctx context.Context, customerID, currency string, payee *ledger.Payee) (ledger.Account, bool, error)
}

// UseConnect makes the service create expected (Connect) payments: a
// payment whose money goes to an ACTIVE Connect account of its customer in
// its currency (no beneficiary, or a beneficiary naming that account) is
// expected on that account; without a beneficiary, the account becomes it.
func (s *Service) UseConnect(c ConnectAccounts) { s.connect = c }

// NotReceivedAmount is the sandbox's magic amount: an expected payment of
// exactly 2050 minor units moves to NOT_RECEIVED as soon as it is COMPLETED.
const NotReceivedAmount = 2050

// Expected reports whether p is a Connect payment awaiting funds on an account.
func (p Payment) Expected() bool { return p.ConnectAccountID != "" }

// LedgerWrite is a movement of money a change writes in its unit of work:
// a new account transaction and its first entry.
type LedgerWrite struct {
	Transaction ledger.Transaction
	Entry       ledger.Entry
}

// expect finds the Connect account r would be expected on and, when r has
// no beneficiary, makes that account its beneficiary. It returns the
// account's id, or "" when the money goes to no Connect account of the
// customer in r's currency: it has none, or r's beneficiary names another
// account (docs/decisions.md, "A payment is expected only where its money
// goes"). A beneficiary without account identifiers names no account (and
// fails validation).
func (s *Service) expect(ctx context.Context, customerID string, r *CreateRequest) (string, error) {
	if s.connect == nil {
		return "", nil
	}
	var payee *ledger.Payee
	if b := r.Beneficiary; b != nil {
		if b.AccountIdentifiers == nil {
			return "", nil
		}
		ids := b.AccountIdentifiers
		payee = &ledger.Payee{IBAN: ids.IBAN, SortCode: ids.SortCode, AccountNumber: ids.AccountNumber}
	}
	acct, ok, err := s.connect.ReceivingAccount(ctx, customerID, strings.ToUpper(strings.TrimSpace(r.Currency)), payee)
	if err != nil || !ok {
		return "", err
	}
	if r.Beneficiary == nil {
		r.Beneficiary = BeneficiaryOf(acct)
	}
	return acct.ID, nil
}

// BeneficiaryOf is a Connect account as the beneficiary of a payment: its
// IBAN and, for a GB IBAN, the sort code and account number inside it (so
// that UK payments have what Faster Payments needs).
func BeneficiaryOf(a ledger.Account) *Beneficiary {
	name := a.Nickname
	if name == "" {
		name = "Connect account " + a.IBAN[max(0, len(a.IBAN)-4):]
	}
	ids := &AccountIdentifiers{IBAN: a.IBAN}
	if iso.IBANCountry(a.IBAN) == "GB" && len(a.IBAN) == 22 {
		ids.SortCode, ids.AccountNumber = a.IBAN[8:14], a.IBAN[14:22]
	}
	return &Beneficiary{Name: name, AccountIdentifiers: ids}
}

// afterCompleted is what follows COMPLETED for an expected payment: the
// sandbox's amount 2050 never arrives (NOT_RECEIVED at once); otherwise
// the payment waits for its funds at COMPLETED, with the timed move to
// NOT_RECEIVED, as in production, where the bank's statement brings them
// (Service.Credit). In the sandbox (not waitForFunds) the mock bank sends
// them from the payer's account (Change.Arrives: Service.save writes its
// camt.054 credit advice, which the statement importer books, in the
// change's unit of work), unless noFunds (the scenario
// COMPLETED>NOT_RECEIVED): nothing arrives and the timed move ends the wait.
func (l *Lifecycle) afterCompleted(c *Change, p *Payment, noFunds bool) error {
	switch {
	case !l.waitForFunds && p.Amount() == NotReceivedAmount:
		return l.step(c, p, StatusNotReceived, p.UpdatedAt, "", "")
	case l.waitForFunds || noFunds:
		return nil
	}
	var from ledger.Counterparty
	if p.Sender != nil {
		from = ledger.Counterparty{Name: p.Sender.Name, IBAN: p.Sender.IBAN}
	}
	c.Arrives = &Funds{Sender: from, Reference: p.UniqueReference}
	return nil
}

// Funds are incoming money matched to a payment.
type Funds struct {
	ExternalID string // the sender's id (POST /payin externalPaymentId); empty from the mock bank
	Reference  string
	Sender     ledger.Counterparty
}

// receive moves p to RECEIVED on funds f at time at: the GATEWAY_PAYMENT
// credit of its Connect account, and payment_received with the sender.
func (l *Lifecycle) receive(c *Change, p *Payment, f Funds, at time.Time) error {
	amount, err := money.New(p.Amount(), p.Request.Currency)
	if err != nil {
		return err
	}
	t := ledger.Transaction{ID: ids.New(), AccountID: p.ConnectAccountID, CustomerID: p.CustomerID,
		Type: ledger.TypeGatewayPayment, Operation: ledger.Incoming, Status: ledger.TxCompleted, Amount: amount,
		PaymentID: p.ID, ExternalID: f.ExternalID, Reference: f.Reference, Counterparty: f.Sender, CreatedAt: at, UpdatedAt: at}
	e, err := ledger.Open(t, ids.New())
	if err != nil {
		return err
	}
	c.Ledger = append(c.Ledger, LedgerWrite{Transaction: t, Entry: e})
	c.funds = &f
	return l.step(c, p, StatusReceived, at, "", "")
}

// connectMessage is the payment_received or payment_not_received
// notification of p on reaching RECEIVED or NOT_RECEIVED (no
// detailedStatus; the sender with payment_received only).
func (l *Lifecycle) connectMessage(p Payment, f *Funds) (notify.Message, error) {
	body := notification.Connect{Payment: p.ID, Reference: p.UniqueReference, MerchantInternalReference: p.Request.InternalReference,
		Amount: p.Amount(), Status: string(p.Status), Currency: p.Request.Currency, Timestamp: p.UpdatedAt}
	if p.Status == StatusReceived && f != nil && (f.Sender.Name != "" || f.Sender.IBAN != "") {
		body.Sender = &notification.ConnectSender{Name: f.Sender.Name, IBAN: f.Sender.IBAN, Location: iso.IBANCountry(f.Sender.IBAN)}
	}
	return notify.Connect(notify.Target{CustomerID: p.CustomerID, ClientID: p.ClientID, URL: p.Request.NotificationURL()}, body)
}

// notReceivedMove is the timed move of an expected payment COMPLETED at
// at: NOT_RECEIVED once its scheme's timeframe has passed without funds.
func (l *Lifecycle) notReceivedMove(p Payment, at time.Time) *TimedMove {
	var b *bank.Bank
	if bk, ok := l.Bank(p); ok {
		b = &bk
	}
	return &TimedMove{To: StatusNotReceived, At: at.Add(Timeframe(TransferType(p.System(), b)))}
}

// writeLedger records the movements of money of a change in its unit of work.
func writeLedger(ctx context.Context, r Repos, writes []LedgerWrite) error {
	for _, w := range writes {
		if err := r.Ledger().Record(ctx, w.Transaction, w.Entry); err != nil {
			return err
		}
	}
	return nil
}
