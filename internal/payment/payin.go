package payment

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/iso"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/money"
)

// PayinInput is incoming funds on a Connect account (POST /payin, the
// contract's SimulatedIncomingTransaction).
type PayinInput struct {
	ViewerCustomerID  string // the caller: the account must be its own or below it
	ExternalPaymentID string // the sender's id: the same id on the same account is taken once
	PaymentReference  string
	Amount            int64
	Currency          string
	SenderName        string
	SenderIBAN        string
	BeneficiaryIBAN   string
	// References are more references the funds may carry (a bank
	// statement's remittance lines and end-to-end id), tried in order
	// after PaymentReference to find the expected payment.
	References []string
	// PaymentID, when set, is the id of the payment the funds name
	// unambiguously: a statement credit whose EndToEndId is a payment's id
	// as bankrail writes them (the sandbox's mock bank sends the funds of a
	// completed expected payment so). It is tried before the references,
	// which many payments may share.
	PaymentID string
}

// PayinOutcome says what incoming funds did.
type PayinOutcome struct {
	Transaction ledger.Transaction // the account transaction (the earlier one for a repeat)
	PaymentID   string             // the payment the funds matched; empty for a MANUAL_CREDIT
	Repeated    bool               // the external id had been taken: nothing changed
}

// payinStatuses are the statuses of an expected payment that incoming
// funds move to RECEIVED.
var payinStatuses = []Status{StatusCompleted, StatusNotReceived, StatusBankRedirect, StatusAuthorisedByUser, StatusDelayedAtBank}

// PayinStatuses are the statuses of an expected payment that incoming
// funds move to RECEIVED (what Credit asks MatchExpected for).
func PayinStatuses() []Status { return append([]Status(nil), payinStatuses...) }

// Payin books incoming funds on the Connect account of in's beneficiary
// IBAN: funds whose reference (a payment's uniqueReference or id),
// amount and currency match an expected payment of that account (COMPLETED,
// NOT_RECEIVED, or still at the bank: see Receive) credit it as GATEWAY_PAYMENT and move the payment to
// RECEIVED with payment_received; anything else is a MANUAL_CREDIT. All of
// it in one unit of work. A repeated external id changes nothing. An alias
// IBAN (internal/alias) stands for its account; an inactive alias's funds
// bounce (see bounceBack).
func (s *Service) Payin(ctx context.Context, in PayinInput) (PayinOutcome, error) {
	if _, err := identity.Authorize(ctx, identity.SandboxAct); err != nil {
		return PayinOutcome{}, err
	}
	in.BeneficiaryIBAN, in.SenderIBAN = iso.NormalizeIBAN(in.BeneficiaryIBAN), iso.NormalizeIBAN(in.SenderIBAN)
	in.Currency = strings.ToUpper(strings.TrimSpace(in.Currency))
	if err := checkPayin(in, Limits{MaxMajor: s.cfg.MaxMajor}); err != nil {
		return PayinOutcome{}, err
	}
	// The caller's tenant is the account's: the account is the caller's
	// own or one below it.
	now, err := clock.UnitTime(ctx, s.clock, in.ViewerCustomerID)
	if err != nil {
		return PayinOutcome{}, err
	}
	if s.incoming != nil { // the checks of the account, then the bank's way in
		var acct ledger.Account
		if err := s.inTx(ctx, func(r Repos) error {
			a, _, err := payinAccount(ctx, r, in)
			acct = a
			return err
		}); err != nil {
			return PayinOutcome{}, err
		}
		return s.incoming.Incoming(ctx, acct, in)
	}
	var out PayinOutcome
	for range 3 { // a concurrent payin took the payment or the external id: look again
		out, err = s.payinOnce(ctx, in, now)
		if !errs.Is(err, errs.Conflict) {
			break
		}
	}
	return out, err
}

func (s *Service) payinOnce(ctx context.Context, in PayinInput, now time.Time) (PayinOutcome, error) {
	var out PayinOutcome
	err := s.inTx(ctx, func(r Repos) error {
		out = PayinOutcome{}
		acct, bounce, err := payinAccount(ctx, r, in)
		if err != nil {
			return err
		}
		out, err = s.Credit(ctx, r, acct, bounce, in, now)
		return err
	})
	return out, err
}

// payinAccount finds the account of in's beneficiary IBAN (an alias's
// account; bounce: the alias is inactive) and checks that it is an active
// Connect account of the caller in in's currency.
func payinAccount(ctx context.Context, r Repos, in PayinInput) (ledger.Account, bool, error) {
	acct, err := r.Ledger().AccountByIBAN(ctx, in.BeneficiaryIBAN)
	bounce := false
	if errs.Is(err, errs.NotFound) { // an alias of an account: the account's funds, or they bounce
		acct, bounce, err = aliasAccount(ctx, r, in.ViewerCustomerID, in.BeneficiaryIBAN)
	}
	if err == nil {
		_, err = r.Ledger().Account(ctx, in.ViewerCustomerID, acct.ID) // another customer's account is unknown too
	}
	if errs.Is(err, errs.NotFound) || err == nil && acct.Status != ledger.AccountActive {
		var v errs.Validation
		v.Add(errs.InvalidValue, "beneficiary.accountIdentifiers.iban", "No active Connect account of yours has the IBAN %s.", in.BeneficiaryIBAN)
		return ledger.Account{}, false, v.Err()
	} else if err != nil {
		return ledger.Account{}, false, err
	}
	if acct.Currency != in.Currency {
		var v errs.Validation
		v.Add(errs.InvalidValue, "amount.currency", "The account %s holds %s, not %s.", in.BeneficiaryIBAN, acct.Currency, in.Currency)
		return ledger.Account{}, false, v.Err()
	}
	return acct, bounce, nil
}

// Credit books incoming funds in on the Connect account acct (found by the
// caller from in.BeneficiaryIBAN, an alias's account when bounce says
// whether the alias is inactive) inside the caller's unit of work r, at
// now: the same matching as POST /payin (see Payin). A repeat of
// in.ExternalPaymentID on the account changes nothing (Repeated). The
// bank statement importer (internal/statement) calls it for each credit.
func (s *Service) Credit(ctx context.Context, r Repos, acct ledger.Account, bounce bool, in PayinInput, now time.Time) (PayinOutcome, error) {
	if prev, err := r.Ledger().TransactionByExternalID(ctx, acct.ID, in.ExternalPaymentID); err == nil {
		return PayinOutcome{Transaction: prev, PaymentID: prev.PaymentID, Repeated: true}, nil
	} else if !errs.Is(err, errs.NotFound) {
		return PayinOutcome{}, err
	}
	funds := Funds{ExternalID: in.ExternalPaymentID, Reference: in.PaymentReference,
		Sender: ledger.Counterparty{Name: in.SenderName, IBAN: in.SenderIBAN}}
	if bounce {
		return bounceBack(ctx, r, acct, in, funds, now)
	}
	p, err := s.matchExpected(ctx, r, acct.ID, in)
	switch {
	case err == nil:
		c, err := s.life.Receive(p, funds, now)
		if err != nil {
			return PayinOutcome{}, err
		}
		if err := r.Payments().Move(ctx, c); err != nil {
			return PayinOutcome{}, err
		}
		if err := writeLedger(ctx, r, c.Ledger); err != nil {
			return PayinOutcome{}, err
		}
		out := PayinOutcome{Transaction: c.Ledger[0].Transaction, PaymentID: p.ID}
		return out, r.Outbox().Enqueue(ctx, now, c.Messages...)
	case !errs.Is(err, errs.NotFound):
		return PayinOutcome{}, err
	}
	amount, err := money.New(in.Amount, in.Currency)
	if err != nil {
		return PayinOutcome{}, err
	}
	t := ledger.Transaction{ID: ids.New(), AccountID: acct.ID, CustomerID: acct.CustomerID, Type: ledger.TypeManualCredit,
		Operation: ledger.Incoming, Status: ledger.TxCompleted, Amount: amount, ExternalID: in.ExternalPaymentID,
		Reference: in.PaymentReference, Counterparty: funds.Sender, CreatedAt: now, UpdatedAt: now}
	e, err := ledger.Open(t, ids.New())
	if err != nil {
		return PayinOutcome{}, err
	}
	return PayinOutcome{Transaction: t}, r.Ledger().Record(ctx, t, e)
}

// matchExpected finds the payment in's funds pay: by in.PaymentID, then
// by in.PaymentReference, then by each of in.References in turn
// (RESOURCE_NOT_FOUND when none).
func (s *Service) matchExpected(ctx context.Context, r Repos, accountID string, in PayinInput) (Payment, error) {
	if in.PaymentID != "" {
		p, err := r.Payments().MatchExpected(ctx, accountID, in.PaymentID, in.Amount, in.Currency, payinStatuses)
		if err == nil || !errs.Is(err, errs.NotFound) {
			return p, err
		}
	}
	refs := append([]string{in.PaymentReference}, in.References...)
	for i, ref := range refs {
		if ref == "" && i > 0 {
			continue
		}
		p, err := r.Payments().MatchExpected(ctx, accountID, ref, in.Amount, in.Currency, payinStatuses)
		if err == nil || !errs.Is(err, errs.NotFound) || i == len(refs)-1 {
			return p, err
		}
	}
	return Payment{}, errs.NotFoundf("No payment is expected with these references.")
}

// IncomingBank receives incoming funds the way a bank reports them: the
// sandbox's mock bank writes them as a camt.054 credit advice and hands it
// to the statement importer (internal/statement), which books them with
// Credit like any bank statement's.
type IncomingBank interface {
	// Incoming books in, whose beneficiary IBAN is (or is an alias of)
	// the caller's active Connect account acct.
	Incoming(ctx context.Context, acct ledger.Account, in PayinInput) (PayinOutcome, error)
	// Arrive sends the funds f of the expected payment p, which the unit
	// of work r has just moved to COMPLETED, to its Connect account: the
	// bank's credit advice, booked in r (by Credit, as a statement's).
	Arrive(ctx context.Context, r Repos, p Payment, f Funds) error
}

// errNoIncomingBank is the sandbox's error when funds should arrive and no
// mock bank was wired (UseIncomingBank).
var errNoIncomingBank = errors.New("payment: the sandbox's funds arrive through a mock bank, and none is wired (Service.UseIncomingBank)")

// arrive hands the funds the mock bank sends for the payment c completed
// (c.Arrives, sandbox only) to the incoming bank, in the unit of work r.
func (s *Service) arrive(ctx context.Context, r Repos, c Change) error {
	switch {
	case c.Arrives == nil:
		return nil
	case s.incoming == nil:
		return errNoIncomingBank
	}
	return s.incoming.Arrive(ctx, r, c.Payment, *c.Arrives)
}

// UseIncomingBank routes POST /payin's funds, once validated and their
// account found, through bank instead of booking them directly, and makes
// bank the sender of the funds of the sandbox's completed expected
// payments (Change.Arrives).
func (s *Service) UseIncomingBank(bank IncomingBank) { s.incoming = bank }

// checkPayin validates incoming funds, every failing field at once.
func checkPayin(in PayinInput, lim Limits) error {
	var v errs.Validation
	switch {
	case strings.TrimSpace(in.ExternalPaymentID) == "":
		v.Add(errs.ValueRequired, "externalPaymentId", "externalPaymentId is required: the sender's id of the funds.")
	case len(in.ExternalPaymentID) > MaxReferenceLength:
		v.Add(errs.TooLong, "externalPaymentId", "externalPaymentId must be at most %d characters long.", MaxReferenceLength)
	}
	if len(in.PaymentReference) > MaxReferenceLength {
		v.Add(errs.TooLong, "paymentReference", "paymentReference must be at most %d characters long.", MaxReferenceLength)
	}
	switch {
	case in.Amount <= 0:
		v.Add(errs.TooLow, "amount.amount", "amount.amount must be a positive number of minor units.")
	default:
		lim.checkMax(&v, "amount.amount", in.Amount, in.Currency)
	}
	if _, ok := iso.CurrencyOf(in.Currency); !ok {
		v.Add(errs.InvalidValue, "amount.currency", "amount.currency %q is not an ISO 4217 currency code.", in.Currency)
	}
	checkIBAN(&v, "beneficiary.accountIdentifiers.iban", in.BeneficiaryIBAN, true)
	checkIBAN(&v, "sender.accountIdentifiers.iban", in.SenderIBAN, false)
	if len([]rune(in.SenderName)) > MaxNameLength {
		v.Add(errs.TooLong, "sender.name", "sender.name must be at most %d characters long.", MaxNameLength)
	}
	return v.Err()
}

// checkIBAN validates an IBAN field of incoming funds.
func checkIBAN(v *errs.Validation, path, iban string, required bool) {
	switch p := iso.CheckIBAN(iban); {
	case iban == "":
		if required {
			v.Add(errs.ValueRequired, path, "%s is required.", path)
		}
	case p == iso.IBANTooLong:
		v.Add(errs.TooLong, path, "%s must be at most %d characters long.", path, iso.IBANMaxLength)
	case p == iso.IBANBadChecksum:
		v.Add(errs.ChecksumFailed, path, "%s fails its mod-97 checksum.", path)
	case p != iso.IBANOK:
		v.Add(errs.InvalidFormat, path, "%s is not an IBAN.", path)
	}
}

// Receive moves an expected payment p to RECEIVED on funds f at time now.
// Funds that arrive while the payment is still at the bank (BANK_REDIRECT,
// AUTHORISED_BY_USER, DELAYED_AT_BANK) move it to RECEIVED at once and its
// COMPLETED gateway notification follows payment_received (the contract's
// rule 1); the bank's answer, timed or not, no longer applies.
func (l *Lifecycle) Receive(p Payment, f Funds, now time.Time) (Change, error) {
	c := Change{From: p.Status, Stored: len(p.History)}
	p.History = append([]StatusUpdate(nil), p.History...)
	if !p.Expected() {
		return Change{}, errs.E(errs.Conflict, "The payment is not expected on a Connect account.")
	}
	early := p.Status.Initiating()
	if early && p.Sender == nil && (f.Sender.Name != "" || f.Sender.IBAN != "") {
		p.Sender = &Sender{Name: f.Sender.Name, IBAN: f.Sender.IBAN}
	}
	if err := l.receive(&c, &p, f, now); err != nil {
		return Change{}, err
	}
	if early {
		done := p
		done.Status = StatusCompleted
		msg, ok, err := l.gatewayMessage(done)
		if err != nil {
			return Change{}, err
		}
		if ok {
			c.Messages = append(c.Messages, msg)
		}
	}
	c.Payment = p
	return c, nil
}
