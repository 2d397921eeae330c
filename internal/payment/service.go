package payment

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/url"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/namematch"
)

// Config are the settings of the payment service.
type Config struct {
	PublicURL string // base of the checkout and short-link addresses
	MaxMajor  int64  // the largest amount, in major units of its currency (Limits.MaxMajor)
	// CheckNotificationURL, when set (production), vets a payment's
	// communication.notifications.url beyond its syntax: the production
	// guard refuses URLs that resolve to internal addresses.
	CheckNotificationURL func(ctx context.Context, rawURL, field string) error
	// Observer, when set, is told about payments created and moved (metrics).
	Observer Observer
	// WaitForFunds (production): an expected payment that completes waits
	// at COMPLETED for its funds, which the bank's statement brings
	// (Credit); without it (the sandbox) the mock bank sends them at once.
	WaitForFunds bool
}

// Service creates, reads and lists payments. Reads go to payments; each
// use case that writes runs in one unit of work of inTx.
type Service struct {
	payments Repository
	inTx     Transactor
	keys     *idempotency.Guard
	banks    *bank.Registry
	clock    clock.Clock
	cfg      Config
	life     *Lifecycle
	connect  ConnectAccounts // nil: no payment is expected on a Connect account
	mandates Mandates        // nil: no payment is taken against a mandate (mandate.go)
	stats    Stats           // nil: PerDay counts none
	incoming IncomingBank    // nil: POST /payin books its funds directly (payin.go)
	onMoves  []Also          // run in the unit of work of every move (OnMoves)
}

// NewService returns a payment service: payments for reads and
// self-contained writes, inTx for units of work, keys for Idempotency-Keys.
func NewService(payments Repository, inTx Transactor, keys *idempotency.Guard, banks *bank.Registry, clk clock.Clock, cfg Config) *Service {
	life := NewLifecycle(banks)
	life.waitForFunds = cfg.WaitForFunds
	return &Service{payments: payments, inTx: inTx, keys: keys, banks: banks, clock: clk, cfg: cfg, life: life}
}

// PublicURL is the base address payers and merchants see.
func (s *Service) PublicURL() string { return s.cfg.PublicURL }

// Banks is the registry the service validates institutions against.
func (s *Service) Banks() *bank.Registry { return s.banks }

// Creator is who creates a payment: the token's customer, application and
// user. Notifications are later signed with that application's secret.
type Creator struct {
	CustomerID string
	ClientID   string
	UserID     string
}

// CreateInput is one POST /payments.
type CreateInput struct {
	Creator        Creator
	Channel        Channel
	IdempotencyKey string // optional; at most MaxIdempotencyKeyLength
	Operation      string // e.g. "POST /payments": part of the idempotency fingerprint
	Request        CreateRequest
	Scenario       Outcome // sandbox: played right after creation, in the same transaction
}

// Response is the answer to a creation as the client received it: the
// representation rendered from the new payment, kept under the
// Idempotency-Key for replays.
type Response = idempotency.Response

// Renderer turns a new payment into the representation the client gets.
type Renderer func(Payment) ([]byte, error)

// Create validates the request, creates the payment in status NEW_PAYMENT
// and returns render's answer (of the NEW_PAYMENT record). A sandbox
// scenario is played in the same transaction; its notifications follow. With an idempotency key, a repeat of the
// same request gets the stored answer (Replayed), a different request or a
// still-running one gets IDEMPOTENCY_CONFLICT.
func (s *Service) Create(ctx context.Context, in CreateInput, render Renderer) (Response, error) {
	if _, err := identity.Authorize(ctx, identity.PaymentCreate); err != nil {
		return Response{}, err
	}
	connectID, err := s.expect(ctx, in.Creator.CustomerID, &in.Request)
	if err != nil {
		return Response{}, err
	}
	if err := Validate(&in.Request, in.Channel, Limits{MaxMajor: s.cfg.MaxMajor}, s.banks); err != nil {
		return Response{}, err
	}
	if err := s.checkNotificationURL(ctx, in.Request); err != nil {
		return Response{}, err
	}
	p, err := s.newPayment(ctx, in)
	if err != nil {
		return Response{}, err
	}
	p.ConnectAccountID = connectID
	stored, err := s.life.Apply(p, Event{Outcome: in.Scenario}, p.CreatedAt)
	if err != nil {
		return Response{}, err
	}
	// One transaction whatever the key: its claim and completion are the
	// unit of work's first statement (idempotency.Request.OneTransaction).
	key := in.idempotencyRequest()
	key.OneTransaction = true
	res, replayed, err := s.keys.Do(ctx, key, func(ctx context.Context, t *idempotency.Ticket) (idempotency.Result, error) {
		body, err := render(p) // the NEW_PAYMENT record, whatever a scenario does next
		if err != nil {
			return idempotency.Result{}, err
		}
		res := idempotency.Result{ResourceID: p.ID, Body: body}
		if t == nil && len(stored.Messages) == 0 && len(stored.Ledger) == 0 && stored.Arrives == nil {
			return res, s.payments.Create(ctx, stored.Payment) // a unit of work by itself
		}
		return res, s.inTx(ctx, func(r Repos) error {
			if t != nil { // first: a key stored already undoes nothing else
				if err := r.Idempotency().Complete(ctx, *t, res); err != nil {
					return err
				}
			}
			return s.writeCreated(ctx, r, stored)
		})
	})
	if err != nil {
		return Response{}, err
	}
	if !replayed {
		s.observeCreated(stored)
	}
	return Response{Body: res.Body, ResourceID: res.ResourceID, Replayed: replayed}, nil
}

// checkNotificationURL applies the configured check (netguard) to the
// request's own notification URL, when it has one.
func (s *Service) checkNotificationURL(ctx context.Context, req CreateRequest) error {
	c := req.Communication
	if s.cfg.CheckNotificationURL == nil || c == nil || c.Notifications == nil || c.Notifications.URL == "" {
		return nil
	}
	return s.cfg.CheckNotificationURL(ctx, c.Notifications.URL, "communication.notifications.url")
}

// idempotencyRequest is the key of a creating request: its fingerprint
// covers the operation, a sandbox scenario, the channel and the request.
// Without a key there is no fingerprint: it is the key's only use, and its
// canonical JSON encoding was 15% of the CPU of a create.
func (in CreateInput) idempotencyRequest() idempotency.Request {
	r := idempotency.Request{CustomerID: in.Creator.CustomerID, Key: in.IdempotencyKey, Noun: "payment"}
	if r.Key == "" {
		return r
	}
	op := in.Operation
	if len(in.Scenario) > 0 {
		op += " scenario " + in.Scenario.String()
	}
	r.Fingerprint = Fingerprint(op, in.Channel, in.Request)
	return r
}

// writeCreated writes a new payment in the unit of work r with what its
// first moves caused: notifications, ledger postings and, in the sandbox,
// the funds of an expected payment they completed.
func (s *Service) writeCreated(ctx context.Context, r Repos, c Change) error {
	if err := r.Payments().Create(ctx, c.Payment); err != nil {
		return err
	}
	if err := r.Outbox().Enqueue(ctx, c.Payment.UpdatedAt, c.Messages...); err != nil {
		return err
	}
	if err := writeLedger(ctx, r, c.Ledger); err != nil {
		return err
	}
	return s.arrive(ctx, r, c)
}

// newPayment builds the NEW_PAYMENT record of an accepted request.
func (s *Service) newPayment(ctx context.Context, in CreateInput) (Payment, error) {
	now, err := clock.UnitTime(ctx, s.clock, in.Creator.CustomerID)
	if err != nil {
		return Payment{}, err
	}
	ref := in.Request.PaymentReference
	if ref == "" {
		ref = "BR" + randomCode(10)
	}
	p := Payment{
		ID: ids.New(), CustomerID: in.Creator.CustomerID, ClientID: in.Creator.ClientID, UserID: in.Creator.UserID,
		Channel: in.Channel, Request: in.Request, Status: StatusNew,
		History:         []StatusUpdate{{Status: StatusNew, CreatedAt: now}},
		UniqueReference: ref, ShortCode: randomCode(10), CheckoutToken: randomCode(32),
		CreatedAt: now, UpdatedAt: now,
	}
	p.Next = timedMoveAfter(p, now, "")
	return p, nil
}

// codeAlphabet has no look-alike characters (no 0/O, 1/I/L), for codes
// read from screens and QR codes.
const codeAlphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"

// randomCode returns n uniformly random characters of codeAlphabet
// (~4.95 bits each).
func randomCode(n int) string {
	const limit = 256 - 256%len(codeAlphabet) // reject the bytes that would bias the draw
	out := make([]byte, 0, n)
	buf := make([]byte, n+8)
	for len(out) < n {
		_, _ = rand.Read(buf) // never fails (crypto/rand)
		for _, c := range buf {
			if int(c) < limit && len(out) < n {
				out = append(out, codeAlphabet[int(c)%len(codeAlphabet)])
			}
		}
	}
	return string(out)
}

// Redirect are the addresses the payer is sent to.
type Redirect struct {
	URL       string // short, QR friendly: {PublicURL}/c/{code}
	DirectURL string // the full checkout (hosted) or bank authorisation (api) address
}

// RedirectOf returns the payer's addresses of p. On the hosted channel the
// direct address is the hosted checkout; on the api channel it is the
// chosen bank's authorisation page.
func (s *Service) RedirectOf(p Payment) Redirect {
	direct := s.checkoutAddress(p, p.CheckoutToken)
	if p.Channel == ChannelAPI {
		direct = fmt.Sprintf("%s/mock-banks/%s/authorise/%s?token=%s", s.cfg.PublicURL, p.Scheme().InstitutionID, p.ID, url.QueryEscape(p.CheckoutToken))
	}
	return Redirect{URL: s.cfg.PublicURL + "/c/" + p.ShortCode, DirectURL: direct}
}

// checkoutAddress is the hosted checkout of p opened with token.
func (s *Service) checkoutAddress(p Payment, token string) string {
	return fmt.Sprintf("%s/checkout/%s?token=%s", s.cfg.PublicURL, p.ID, url.QueryEscape(token))
}

// CheckoutURL is the hosted checkout of p opened with a link token of l
// (the legacy API's checkoutUrl).
func (s *Service) CheckoutURL(p Payment, l Link) string { return s.checkoutAddress(p, LinkToken(p, l)) }

// Check validates a create request as Create would, without creating
// anything (the legacy API reports its own mapping errors beside these).
func (s *Service) Check(r CreateRequest, ch Channel) error {
	return Validate(&r, ch, Limits{MaxMajor: s.cfg.MaxMajor}, s.banks)
}

// ResolveShortLink returns the direct address behind a short link code.
func (s *Service) ResolveShortLink(ctx context.Context, code string) (string, error) {
	if len(code) == 0 || len(code) > 32 {
		return "", errs.NotFoundf("No payment link %q.", code)
	}
	p, err := s.payments.GetByShortCode(ctx, code)
	if err != nil {
		return "", err
	}
	if p.FromMandate() { // no payer step: nothing to open
		return "", errs.NotFoundf("No payment link %q.", code)
	}
	return s.RedirectOf(p).DirectURL, nil
}

// Bank returns the bank the payer picked, if any.
func (s *Service) Bank(p Payment) (bank.Bank, bool) {
	id := p.Scheme().InstitutionID
	if id == "" {
		return bank.Bank{}, false
	}
	return s.banks.Get(id)
}

// TransferType names the scheme of p (see TransferType).
func (s *Service) TransferType(p Payment) string {
	if b, ok := s.Bank(p); ok {
		return TransferType(p.System(), &b)
	}
	return TransferType(p.System(), nil)
}

// RecordSender stores the paying account the bank reported (used by tests;
// the mock bank reports it with the payer's authorisation), at the time of
// the payment's tenant.
func (s *Service) RecordSender(ctx context.Context, id string, sender Sender) error {
	p, err := s.payments.GetByID(ctx, id)
	if err != nil {
		return err
	}
	now, err := clock.UnitTime(ctx, s.clock, p.CustomerID)
	if err != nil {
		return err
	}
	return s.payments.SetSender(ctx, id, sender, now)
}

// NameMatch is the answer of a name match score request.
type NameMatch struct {
	InvocationID string
	Score        float64
}

// NameMatchScore compares the payer's name on the payment with the account
// holder name the bank reported. It is CONFLICT while either is unknown.
func (s *Service) NameMatchScore(ctx context.Context, viewerCustomerID, id string, allowInitials bool) (NameMatch, error) {
	if _, err := identity.Authorize(ctx, identity.PaymentRead); err != nil {
		return NameMatch{}, err
	}
	p, err := s.Get(ctx, viewerCustomerID, id)
	if err != nil {
		return NameMatch{}, err
	}
	payer := p.Request.Payer.Name()
	if payer == "" {
		return NameMatch{}, errs.E(errs.Conflict, "The payment has no payer name (payer.firstName and lastName, or organisationName) to compare.")
	}
	if p.Sender == nil || p.Sender.Name == "" {
		return NameMatch{}, errs.E(errs.Conflict, "The account holder name is not known yet: the payer's bank reports it once the payer has authorised the payment.")
	}
	org := p.Request.Payer.OrganisationName != ""
	score := namematch.Score(payer, p.Sender.Name, namematch.Options{AllowInitials: allowInitials, Organisation: org})
	return NameMatch{InvocationID: uuid.NewString(), Score: score}, nil
}
