package payment

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"bankrail/internal/bank"
	"bankrail/internal/clock"
	"bankrail/internal/errs"
	"bankrail/internal/namematch"
)

// Config are the settings of the payment service.
type Config struct {
	PublicURL         string        // base of the checkout and short-link addresses
	MaxAmount         int64         // minor units
	IdempotencyTTL    time.Duration // how long keys are remembered
	IdempotencyStrict bool          // every reuse of a remembered key is a 409
	// CheckNotificationURL, when set (production), vets a payment's
	// communication.notifications.url beyond its syntax: the production
	// guard refuses URLs that resolve to internal addresses.
	CheckNotificationURL func(ctx context.Context, rawURL, field string) error
}

// Service creates, reads and lists payments.
type Service struct {
	store Store
	banks *bank.Registry
	clock clock.Clock
	cfg   Config
	life  *Lifecycle
}

// NewService returns a payment service.
func NewService(store Store, banks *bank.Registry, clk clock.Clock, cfg Config) *Service {
	return &Service{store: store, banks: banks, clock: clk, cfg: cfg, life: NewLifecycle(banks)}
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

// Response is an answer as the client received it, kept for idempotent
// replays. Status is opaque to this package (the adapter's status code).
type Response struct {
	Status     int
	Body       []byte
	ResourceID string
	Replayed   bool // true when this is a replay of a stored answer
}

// Renderer turns a new payment into the answer the client gets.
type Renderer func(Payment) (Response, error)

// Create validates the request, creates the payment in status NEW_PAYMENT
// and returns render's answer (of the NEW_PAYMENT record). A sandbox
// scenario is played in the same transaction; its notifications follow. With an idempotency key, a repeat of the
// same request gets the stored answer (Replayed), a different request or a
// still-running one gets IDEMPOTENCY_CONFLICT.
func (s *Service) Create(ctx context.Context, in CreateInput, render Renderer) (Response, error) {
	if err := Validate(&in.Request, in.Channel, Limits{MaxAmount: s.cfg.MaxAmount}, s.banks); err != nil {
		return Response{}, err
	}
	if c := in.Request.Communication; s.cfg.CheckNotificationURL != nil && c != nil && c.Notifications != nil && c.Notifications.URL != "" {
		if err := s.cfg.CheckNotificationURL(ctx, c.Notifications.URL, "communication.notifications.url"); err != nil {
			return Response{}, err
		}
	}
	p := s.newPayment(in)
	stored, err := s.life.Apply(p, Event{Outcome: in.Scenario}, p.CreatedAt)
	if err != nil {
		return Response{}, err
	}
	if in.IdempotencyKey == "" {
		resp, err := render(p)
		if err != nil {
			return Response{}, err
		}
		return resp, s.store.CreatePayment(ctx, stored.Payment, nil, stored.Messages...)
	}
	op := in.Operation
	if len(in.Scenario) > 0 {
		op += " scenario " + in.Scenario.String()
	}
	claim := Claim{CustomerID: in.Creator.CustomerID, Key: in.IdempotencyKey,
		RequestHash: Fingerprint(op, in.Channel, in.Request), Token: randomCode(24),
		Now: p.CreatedAt, TTL: s.cfg.IdempotencyTTL, Lease: IdempotencyLease, Strict: s.cfg.IdempotencyStrict}
	res, err := s.store.ClaimIdempotencyKey(ctx, claim)
	if err != nil {
		return Response{}, fmt.Errorf("claim idempotency key: %w", err)
	}
	if res.Decision != DecisionClaimed {
		return replayOrConflict(res)
	}
	resp, err := render(p)
	if err == nil {
		err = s.store.CreatePayment(ctx, stored.Payment, &Completion{CustomerID: claim.CustomerID, Key: claim.Key, Token: claim.Token, Response: resp},
			stored.Messages...)
	}
	if err != nil {
		// Let the client retry with the same key at once. A failed release
		// only delays that until the lease runs out.
		if rerr := s.store.ReleaseIdempotencyKey(context.WithoutCancel(ctx), claim.CustomerID, claim.Key, claim.Token); rerr != nil {
			err = fmt.Errorf("%w (and releasing the idempotency key failed: %v)", err, rerr)
		}
		return Response{}, err
	}
	return resp, nil
}

// replayOrConflict turns a claim that met a stored key into the answer.
func replayOrConflict(res ClaimResult) (Response, error) {
	switch res.Decision {
	case DecisionReplay:
		r := res.Record
		return Response{Status: r.ResponseStatus, Body: r.ResponseBody, ResourceID: r.ResourceID, Replayed: true}, nil
	case DecisionMismatch:
		return Response{}, errs.E(errs.IdempotencyConflict,
			"The Idempotency-Key was already used with a different request; use a new key for a new payment.")
	case DecisionInFlight:
		e := errs.E(errs.IdempotencyConflict,
			"A request with this Idempotency-Key is still being processed; retry after %d s to get its result.", int(IdempotencyRetryAfter/time.Second))
		e.RetryAfter = IdempotencyRetryAfter
		return Response{}, e
	default:
		return Response{}, errs.E(errs.IdempotencyConflict,
			"The Idempotency-Key was already used; this service is set to refuse every reuse of a key.")
	}
}

// newPayment builds the NEW_PAYMENT record of an accepted request.
func (s *Service) newPayment(in CreateInput) Payment {
	now := s.now()
	ref := in.Request.PaymentReference
	if ref == "" {
		ref = "BR" + randomCode(10)
	}
	p := Payment{
		ID: uuid.NewString(), CustomerID: in.Creator.CustomerID, ClientID: in.Creator.ClientID, UserID: in.Creator.UserID,
		Channel: in.Channel, Request: in.Request, Status: StatusNew,
		History:         []StatusUpdate{{Status: StatusNew, CreatedAt: now}},
		UniqueReference: ref, ShortCode: randomCode(10), CheckoutToken: randomCode(32),
		CreatedAt: now, UpdatedAt: now,
	}
	p.Next = timedMoveAfter(p, now, "")
	return p
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
	return Validate(&r, ch, Limits{MaxAmount: s.cfg.MaxAmount}, s.banks)
}

// ResolveShortLink returns the direct address behind a short link code.
func (s *Service) ResolveShortLink(ctx context.Context, code string) (string, error) {
	if len(code) == 0 || len(code) > 32 {
		return "", errs.NotFoundf("No payment link %q.", code)
	}
	p, err := s.store.GetPaymentByShortCode(ctx, code)
	if err != nil {
		return "", err
	}
	return s.RedirectOf(p).DirectURL, nil
}

// Get reads a payment that viewerCustomerID (or a customer above its owner)
// may see; any other is RESOURCE_NOT_FOUND.
func (s *Service) Get(ctx context.Context, viewerCustomerID, id string) (Payment, error) {
	if _, err := uuid.Parse(id); err != nil || len(id) != 36 {
		return Payment{}, errs.E(errs.MalformedPathParam, "The payment id %q is not a uuid.", id)
	}
	return s.store.GetPayment(ctx, viewerCustomerID, strings.ToLower(id))
}

// List returns one page of payments visible to viewerCustomerID and the
// total number of matches.
func (s *Service) List(ctx context.Context, viewerCustomerID string, f ListFilter) ([]Payment, int, error) {
	if f.Page < 1 {
		f.Page = 1
	}
	if f.Limit < 1 || f.Limit > MaxPageLimit {
		f.Limit = DefaultPageLimit
	}
	return s.store.ListPayments(ctx, viewerCustomerID, f)
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
// the mock bank reports it with the payer's authorisation).
func (s *Service) RecordSender(ctx context.Context, id string, sender Sender) error {
	return s.store.SetPaymentSender(ctx, id, sender, s.now())
}

// now is the service time at the precision the store keeps.
func (s *Service) now() time.Time { return s.clock.Now().UTC().Truncate(time.Microsecond) }

// NameMatch is the answer of a name match score request.
type NameMatch struct {
	InvocationID string
	Score        float64
}

// NameMatchScore compares the payer's name on the payment with the account
// holder name the bank reported. It is CONFLICT while either is unknown.
func (s *Service) NameMatchScore(ctx context.Context, viewerCustomerID, id string, allowInitials bool) (NameMatch, error) {
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
