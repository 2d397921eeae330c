package mandate

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/paging"
)

// Config are the settings of the mandate service.
type Config struct {
	PublicURL string // base of the mock bank's addresses
	MaxMajor  int64  // the highest payment limit, in major units of the mandate's currency
}

// Service runs the use cases of mandates and amendments. Reads go to the
// repositories; every change runs in one unit of work of inTx with its
// events and notifications.
type Service struct {
	mandates   Repository
	amendments AmendmentRepository
	inTx       Transactor
	clock      clock.Clock
	cfg        Config
	lister     AmendmentLister // nil: AmendmentsOf lists none
}

// NewService returns a mandate service.
func NewService(mandates Repository, amendments AmendmentRepository, inTx Transactor, clk clock.Clock, cfg Config) *Service {
	return &Service{mandates: mandates, amendments: amendments, inTx: inTx, clock: clk, cfg: cfg}
}

// Creator is who creates a mandate: the token's customer, application and
// user. Notifications go to that application.
type Creator struct {
	CustomerID string
	ClientID   string
	UserID     string
}

// Create makes a REQUESTED mandate (sandbox: POST /mandates) that the payer
// authorises at the mock bank (AuthorisationURL) or through the sandbox.
func (s *Service) Create(ctx context.Context, c Creator, in CreateInput) (Mandate, error) {
	if _, err := identity.Authorize(ctx, identity.MandateCreate); err != nil {
		return Mandate{}, err
	}
	now, err := clock.UnitTime(ctx, s.clock, c.CustomerID)
	if err != nil {
		return Mandate{}, err
	}
	m, err := CheckCreate(in, s.cfg.MaxMajor, now)
	if err != nil {
		return Mandate{}, err
	}
	id := ids.New()
	m.ID, m.CustomerID, m.ClientID, m.UserID, m.Version = id, c.CustomerID, c.ClientID, c.UserID, 1
	if m.Token, err = newToken(); err != nil {
		return Mandate{}, err
	}
	err = s.inTx(ctx, func(r Repos) error { return r.Mandates().Create(ctx, m) })
	return m, err
}

// AuthorisationURL is where the payer authorises m at the mock bank.
func (s *Service) AuthorisationURL(m Mandate) string {
	return s.cfg.PublicURL + "/mock-banks/mandates/" + m.ID + "?token=" + m.Token
}

// ApprovalURL is where the payer answers a at the mock bank.
func (s *Service) ApprovalURL(a Amendment) string {
	return s.cfg.PublicURL + "/mock-banks/amendments/" + a.ID + "?token=" + a.Token
}

// Get reads a mandate of viewerCustomerID (or below it), expired first
// when its validity has passed.
func (s *Service) Get(ctx context.Context, viewerCustomerID, id string) (Mandate, error) {
	if _, err := identity.Authorize(ctx, identity.MandateRead); err != nil {
		return Mandate{}, err
	}
	if err := checkID("mandate", id); err != nil {
		return Mandate{}, err
	}
	m, err := s.mandates.Get(ctx, viewerCustomerID, strings.ToLower(id))
	if err != nil {
		return Mandate{}, err
	}
	return s.settle(ctx, m)
}

// List returns one page of the mandates visible to viewerCustomerID with
// the total.
func (s *Service) List(ctx context.Context, viewerCustomerID string, f ListFilter) (paging.Page[Mandate], error) {
	if _, err := identity.Authorize(ctx, identity.MandateRead); err != nil {
		return paging.Page[Mandate]{}, err
	}
	page, err := s.mandates.List(ctx, viewerCustomerID, f)
	if err != nil {
		return page, err
	}
	for i, m := range page.Items {
		if page.Items[i], err = s.settle(ctx, m); err != nil {
			return paging.Page[Mandate]{}, err
		}
	}
	return page, nil
}

// Suspend pauses an ACTIVE mandate.
func (s *Service) Suspend(ctx context.Context, viewerCustomerID, id string) (Mandate, error) {
	if _, err := identity.Authorize(ctx, identity.MandateChange); err != nil {
		return Mandate{}, err
	}
	return s.merchantMove(ctx, viewerCustomerID, id, Suspend)
}

// Resume makes a SUSPENDED mandate ACTIVE again.
func (s *Service) Resume(ctx context.Context, viewerCustomerID, id string) (Mandate, error) {
	if _, err := identity.Authorize(ctx, identity.MandateChange); err != nil {
		return Mandate{}, err
	}
	return s.merchantMove(ctx, viewerCustomerID, id, Resume)
}

// Cancel ends a mandate that has not ended.
func (s *Service) Cancel(ctx context.Context, viewerCustomerID, id string) (Mandate, error) {
	if _, err := identity.Authorize(ctx, identity.MandateChange); err != nil {
		return Mandate{}, err
	}
	return s.merchantMove(ctx, viewerCustomerID, id, Cancel)
}

// merchantMove applies mv to a mandate the viewer sees.
func (s *Service) merchantMove(ctx context.Context, viewerCustomerID, id string, mv Move) (Mandate, error) {
	m, err := s.Get(ctx, viewerCustomerID, id)
	if err != nil {
		return Mandate{}, err
	}
	return s.change(ctx, m.ID, func(r Repos, m Mandate, now time.Time) (Mandate, error) { return s.move(ctx, r, m, mv, now) })
}

// Outcome is the payer's answer to a REQUESTED mandate.
type Outcome string

// Outcomes of a mandate's authorisation.
const (
	OutcomeAuthorised Outcome = "AUTHORISED"
	OutcomeDeclined   Outcome = "DECLINED"
)

// move is the move an outcome makes; ok is false for an unknown outcome.
func (o Outcome) move() (Move, bool) {
	switch o {
	case OutcomeAuthorised:
		return Authorise, true
	case OutcomeDeclined:
		return Decline, true
	}
	return Move{}, false
}

// Authorise plays the payer's answer to a mandate of viewerCustomerID
// (sandbox: POST /sandbox/mandates/{id}/authorise).
func (s *Service) Authorise(ctx context.Context, viewerCustomerID, id string, o Outcome) (Mandate, error) {
	if _, err := identity.Authorize(ctx, identity.SandboxAct); err != nil {
		return Mandate{}, err
	}
	mv, ok := o.move()
	if !ok {
		var v errs.Validation
		v.Add(errs.InvalidValue, "outcome", "outcome %q is not one of AUTHORISED, DECLINED.", o)
		return Mandate{}, v.Err()
	}
	return s.merchantMove(ctx, viewerCustomerID, id, mv)
}

// ForPayer reads the mandate behind the payer's page: token must be the
// mandate's (else RESOURCE_NOT_FOUND, as for a missing mandate).
func (s *Service) ForPayer(ctx context.Context, id, token string) (Mandate, error) {
	notFound := errs.NotFoundf("This mandate link is not valid.")
	if !ids.IsUUID(id) || token == "" {
		return Mandate{}, notFound
	}
	m, err := s.mandates.GetByID(ctx, strings.ToLower(id))
	switch {
	case errs.Is(err, errs.NotFound):
		return Mandate{}, notFound
	case err != nil:
		return Mandate{}, err
	case subtle.ConstantTimeCompare([]byte(m.Token), []byte(token)) != 1:
		return Mandate{}, notFound
	}
	return s.settle(ctx, m)
}

// AnswerAsPayer is the payer's answer on the mock bank's page.
func (s *Service) AnswerAsPayer(ctx context.Context, id, token string, o Outcome) (Mandate, error) {
	mv, ok := o.move()
	if !ok {
		return Mandate{}, errs.E(errs.BadRequest, "Choose one of the buttons.")
	}
	m, err := s.ForPayer(ctx, id, token)
	if err != nil {
		return Mandate{}, err
	}
	return s.change(ctx, m.ID, func(r Repos, m Mandate, now time.Time) (Mandate, error) { return s.move(ctx, r, m, mv, now) })
}

// change runs fn on mandate id, read and locked in one unit of work. A
// mandate whose expiry is due cannot change (the timed move ends it).
func (s *Service) change(ctx context.Context, id string, fn func(r Repos, m Mandate, now time.Time) (Mandate, error)) (Mandate, error) {
	var out Mandate
	err := s.inTx(ctx, func(r Repos) error {
		m, err := r.Mandates().Lock(ctx, id)
		if err != nil {
			return err
		}
		now, err := clock.UnitTime(ctx, s.clock, m.CustomerID)
		if err != nil {
			return err
		}
		if m.ExpiryDue(now) {
			return errs.E(errs.NotModifiable, "The mandate's validity ended at %s.", FormatTimestamp(m.Validity.To))
		}
		out, err = fn(r, m, now)
		return err
	})
	return out, err
}

// move applies mv to m at now inside a unit of work: the mandate, its
// event and, for the moves the merchant is told of, the notification.
func (s *Service) move(ctx context.Context, r Repos, m Mandate, mv Move, now time.Time) (Mandate, error) {
	next, err := mv.Apply(m, now)
	if err != nil {
		return Mandate{}, err
	}
	if err := r.Mandates().Save(ctx, next, mv.Event); err != nil {
		return Mandate{}, err
	}
	next.Version++
	if !mv.Notify {
		return next, nil
	}
	msg, err := message(next, nil, mv.Event, now)
	if err != nil {
		return Mandate{}, err
	}
	return next, r.Outbox().Enqueue(ctx, now, msg)
}

// settle expires m when its validity has passed. When another request or
// instance changed it meanwhile, it returns the mandate as stored.
func (s *Service) settle(ctx context.Context, m Mandate) (Mandate, error) {
	now, err := clock.UnitTime(ctx, s.clock, m.CustomerID)
	if err != nil || !m.ExpiryDue(now) {
		return m, err
	}
	var out Mandate
	err = s.inTx(ctx, func(r Repos) error {
		cur, err := r.Mandates().Lock(ctx, m.ID)
		if err != nil {
			return err
		}
		now, err := clock.UnitTime(ctx, s.clock, cur.CustomerID)
		if err != nil {
			return err
		}
		if !cur.ExpiryDue(now) {
			out = cur
			return nil
		}
		out, err = s.move(ctx, r, cur, Expire, now)
		return err
	})
	return out, err
}

// checkID refuses an id that is not a uuid (MALFORMED_PATH_PARAM).
func checkID(noun, id string) error {
	if !ids.IsUUID(id) {
		return errs.E(errs.MalformedPathParam, "The %s id %q is not a uuid.", noun, id)
	}
	return nil
}

// newToken is a random capability for the payer's pages.
func newToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
