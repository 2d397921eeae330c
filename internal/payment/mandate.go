package payment

import (
	"context"
	"errors"
	"strings"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/iso"
)

// Payments against a mandate (POST /payments with mandateId, decisions.md
// "Mandates and amendments"): the payer authorised the payments in advance
// by authorising the mandate, so there is no payer step and no redirect.
// The payment system, the payer and the receiving account come from the
// mandate and the merchant; the mandate's rules (internal/mandate) run in
// the payment's unit of work, with the mandate locked.

// PaymentSystemPayTo is the payment system of payments against PayTo
// mandates. It is not a registered system (systems.go): a payment names it
// only through a mandate, never in a request of its own.
const PaymentSystemPayTo bank.PaymentSystem = "NPP_PAY_TO_AU"

// TransferNPP is the transfer type of PayTo payments: Australia's New
// Payments Platform, real time (NOT_RECEIVED after 1 day, like Faster
// Payments).
const TransferNPP = "NPP"

// MandateUse is a payment about to be taken against a mandate: what the
// mandate's rules check.
type MandateUse struct {
	MandateID     string
	Amount        int64
	Currency      string             // "" when the request left it out
	PaymentSystem bank.PaymentSystem // "" when the request left it out
}

// MandateTerms are what a payment takes from the mandate it is made
// against.
type MandateTerms struct {
	MandateID     string
	CustomerID    string // the mandate's merchant
	Currency      string
	PaymentSystem bank.PaymentSystem
	Payer         Sender // the payer's account, as the mandate names it
}

// Mandates checks and records payments against mandates (mandate.Service
// through an adapter). UseForPayment runs inside the payment's unit of work
// r and fails with VALIDATION_FAILURE naming the failing fields (mandateId,
// currency, paymentSystem, amount) or CONFLICT.
type Mandates interface {
	UseForPayment(ctx context.Context, r Repos, customerID string, u MandateUse) (MandateTerms, error)
}

// UseMandates makes the service take payments against mandates.
func (s *Service) UseMandates(m Mandates) { s.mandates = m }

// MandateID is the mandate a payment was made against ("" for none).
func (p Payment) MandateID() string { return p.Request.MandateID }

// FromMandate reports whether p was made against a mandate.
func (p Payment) FromMandate() bool { return p.Request.MandateID != "" }

// mandateOutcomeAllowed reports whether a sandbox scenario applies to a
// payment against a mandate: every outcome but the payer's own (there is no
// payer step: nobody can cancel or abandon it).
func mandateOutcomeAllowed(o Outcome) bool {
	for _, st := range o {
		if st == StatusCancelledByUser || st == StatusAbandonedByUser {
			return false
		}
	}
	return true
}

// CreateForMandate creates a payment against in.Request.MandateID (POST
// /payments with mandateId, api channel only). The request needs only
// mandateId, amount and internalReference; currency and paymentSystem, when
// given, must be the mandate's. Every failing field is listed in one 422,
// the mandate's rules included. In the payment's transaction: the mandate's
// use (its rules, usedAt), the payment, its moves straight at the bank (the
// scenario, COMPLETED by default: the sandbox's bank takes it), their
// notifications and the funds on the merchant's Connect account.
func (s *Service) CreateForMandate(ctx context.Context, in CreateInput, render Renderer) (Response, error) {
	if _, err := identity.Authorize(ctx, identity.PaymentCreate); err != nil {
		return Response{}, err
	}
	if in.Channel != ChannelAPI {
		return Response{}, errs.E(errs.InvalidHeader, "A payment against a mandate goes straight to the bank: send X-Service-Initiation-Channel: api, not %s.", in.Channel)
	}
	if !mandateOutcomeAllowed(in.Scenario) {
		return Response{}, errs.E(errs.InvalidHeader, "X-Service-Testing-Scenario %s does not apply to a payment against a mandate: it has no payer step to cancel or abandon.", in.Scenario)
	}
	pre := checkMandateRequest(&in.Request, Limits{MaxMajor: s.cfg.MaxMajor})
	if err := s.checkNotificationURL(ctx, in.Request); err != nil {
		return Response{}, err
	}
	p, err := s.newPayment(ctx, in)
	if err != nil {
		return Response{}, err
	}
	outcome := in.Scenario
	if len(outcome) == 0 {
		outcome = Outcome{StatusCompleted}
	}
	var stored Change
	resp, err := idempotency.Create(ctx, s.keys, in.idempotencyRequest(), s.inTx, func(r Repos) (idempotency.Result, error) {
		np, err := s.takeMandate(ctx, r, p, pre)
		if err != nil {
			return idempotency.Result{}, err
		}
		if stored, err = s.life.Apply(np, Event{Outcome: outcome}, np.CreatedAt); err != nil {
			return idempotency.Result{}, err
		}
		body, err := render(np) // the NEW_PAYMENT record, whatever the bank does next
		if err != nil {
			return idempotency.Result{}, err
		}
		return idempotency.Result{ResourceID: np.ID, Body: body}, s.writeCreated(ctx, r, stored)
	})
	if err == nil && !resp.Replayed {
		s.observeCreated(stored)
	}
	return resp, err
}

// takeMandate applies the mandate's rules to p inside the unit of work r
// and fills p from the mandate and the merchant: currency, payment system,
// the payer as sender, the Connect account as beneficiary. pre are the
// failures of the request's own fields, listed with the mandate's.
func (s *Service) takeMandate(ctx context.Context, r Repos, p Payment, pre errs.Validation) (Payment, error) {
	all := pre
	req := &p.Request
	use := MandateUse{MandateID: req.MandateID, Amount: p.Amount(), Currency: req.Currency, PaymentSystem: req.PaymentSystem}
	var terms MandateTerms
	var err error
	if s.mandates == nil {
		all.Add(errs.InvalidValue, "mandateId", "Payments against mandates are not served here.")
	} else if terms, err = s.mandates.UseForPayment(ctx, r, p.CustomerID, use); err != nil && !addFields(&all, err) {
		return Payment{}, err
	}
	if err == nil && terms.MandateID != "" && terms.CustomerID != p.CustomerID {
		// A PSP sees its merchants' mandates, but their payments are the merchant's own.
		all.Add(errs.InvalidValue, "mandateId", "The mandate is your merchant %s's: take its payments with that merchant's credentials.", terms.CustomerID)
	} else if err == nil && terms.MandateID != "" {
		acct, err := r.Ledger().ConnectAccount(ctx, p.CustomerID, terms.Currency)
		switch {
		case errs.Is(err, errs.NotFound):
			all.Add(errs.InvalidValue, "mandateId", "Payments against this %s mandate are received on an ACTIVE Connect account in %s; your customer has none (docs/connect.md).", terms.Currency, terms.Currency)
		case err != nil:
			return Payment{}, err
		default:
			req.Beneficiary, p.ConnectAccountID = BeneficiaryOf(acct), acct.ID
		}
	}
	if terms.MandateID != "" {
		req.MandateID, req.Currency, req.PaymentSystem = terms.MandateID, terms.Currency, terms.PaymentSystem
		v := validator{Validation: all}
		v.paymentReference(req) // at most what the mandate's scheme carries
		all = v.Validation
	}
	if err := all.Err(); err != nil {
		return Payment{}, err
	}
	payer := terms.Payer
	p.Sender = &payer
	return p, nil
}

// addFields adds the field failures of a VALIDATION_FAILURE err to v and
// reports whether err was one.
func addFields(v *errs.Validation, err error) bool {
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.ValidationFailure {
		return false
	}
	for _, f := range e.Fields {
		if v.HasPath(f.PropertyPath) {
			continue // already reported by the request's own checks
		}
		v.Add(f.Type, f.PropertyPath, "%s", f.Message)
	}
	return true
}

// checkMandateRequest checks the request's own fields of a payment against
// a mandate: mandateId a uuid (lower-cased), amount, internalReference
// (required), paymentReference, the notification URL and display lines.
// The payer, the beneficiary, the scheme objects and the checkout come from
// the mandate and the merchant: they are FIELD_NOT_ALLOWED.
func checkMandateRequest(r *CreateRequest, lim Limits) errs.Validation {
	v := &validator{}
	r.MandateID = strings.ToLower(strings.TrimSpace(r.MandateID))
	if _, ok := iso.CurrencyOf(r.Currency); r.Currency != "" && !ok {
		v.Add(errs.InvalidValue, "currency", "currency %q is not an ISO 4217 currency code; leave it out to pay in the mandate's.", r.Currency)
	}
	v.amount(r, lim)
	if v.required("internalReference", r.InternalReference) {
		v.text("internalReference", r.InternalReference, MaxReferenceLength)
	}
	v.device(r.Device)
	v.communication(r.Communication)
	v.displayInfo(r.DisplayInfo)
	for _, f := range []struct {
		path  string
		given bool
	}{
		{"payer", r.Payer != nil}, {"beneficiary", r.Beneficiary != nil}, {"openBankingEU", r.OpenBankingEU != nil},
		{"openBankingUK", r.OpenBankingUK != nil}, {"checkout", r.Checkout != nil},
	} {
		if f.given {
			v.Add(errs.FieldNotAllowed, f.path, "%s is not allowed with mandateId: it comes from the mandate and your account.", f.path)
		}
	}
	return v.Validation
}
