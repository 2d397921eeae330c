// Package inbox is the sandbox's built-in notification receiver: it keeps
// the notifications bankrail POSTs to an application's inbox URL, each with
// its headers, its exact body and whether its signature holds, so that a
// newcomer sees signed notifications without writing a receiver. It exists
// in sandbox mode only. It knows no SQL; the HTTP adapter hands it what
// arrived.
package inbox

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/notification"
)

// Keep is how many entries an application's inbox holds; older ones are
// dropped as new ones arrive.
const Keep = 1000

// MaxLimit and DefaultLimit bound a page of the inbox.
const (
	MaxLimit     = 100
	DefaultLimit = 25
)

// Entry is one notification received.
type Entry struct {
	ID             string
	CustomerID     string // the application's customer (visibility)
	ApplicationID  string
	ClientID       string
	NotificationID string // X-Service-Notification-Id as received
	Type           string // X-Service-Type as received; empty for gateway
	ReceivedAt     time.Time
	Headers        map[string]string
	Body           []byte
	SignatureValid bool
	Error          string // why the signature does not hold
}

// Page is one page of entries, newest first.
type Page struct {
	Items       []Entry
	TotalItems  int
	Page, Limit int
}

// Repository keeps inbox entries (internal/store).
type Repository interface {
	Add(ctx context.Context, e Entry) error
	// Trim drops the oldest entries of an application beyond keep.
	Trim(ctx context.Context, applicationID string, keep int) error
	// List returns the entries the viewer may see (its customer and those
	// below it), newest first.
	List(ctx context.Context, viewer string, page, limit int) (Page, error)
}

// Repos are the repositories of the unit of work of Receive.
type Repos interface {
	Inbox() Repository
}

// Transactor runs fn in one unit of work.
type Transactor func(ctx context.Context, fn func(Repos) error) error

// Applications finds the application an inbox belongs to, and its
// notification secret's rotation.
type Applications interface {
	GetApplicationByClientID(ctx context.Context, clientID string) (identity.Application, error)
	NotificationChaos(ctx context.Context, clientID string) (notify.Chaos, notify.Rotation, error)
}

// Service receives and lists inbox entries.
type Service struct {
	repo  Repository
	inTx  Transactor
	apps  Applications
	clock clock.Clock
}

// NewService returns the inbox service.
func NewService(repo Repository, inTx Transactor, apps Applications, clk clock.Clock) *Service {
	return &Service{repo: repo, inTx: inTx, apps: apps, clock: clk}
}

// Path is the path of the inbox of the application clientID; the sandbox
// makes {public URL}+Path the demo application's notification URL.
func Path(clientID string) string { return "/sandbox/inbox/" + clientID }

// Receive keeps a notification posted to the inbox of clientID, valid or
// not, and returns the entry. The signature is checked with the public
// receiver package and the application's notification secret, and during a
// rotation's overlap the previous one too, as a receiver that keeps both
// does: a notification signed just before a rotation and delivered after
// it carries the previous secret's signature only. There is no freshness
// check: the sandbox clock may have been advanced. An unknown clientID is
// errs.NotFound and nothing is kept.
func (s *Service) Receive(ctx context.Context, clientID string, h http.Header, body []byte) (Entry, error) {
	app, err := s.apps.GetApplicationByClientID(ctx, clientID)
	if errs.Is(err, errs.NotFound) {
		return Entry{}, errs.NotFoundf("No sandbox inbox for application %q.", clientID)
	}
	if err != nil {
		return Entry{}, err
	}
	received, err := clock.For(ctx, s.clock, app.CustomerID)
	if err != nil {
		return Entry{}, err
	}
	e := Entry{ID: ids.New(), CustomerID: app.CustomerID, ApplicationID: app.ID, ClientID: app.ClientID,
		NotificationID: h.Get(notification.HeaderNotificationID), Type: h.Get(notification.HeaderType),
		ReceivedAt: received, Headers: kept(h), Body: body, SignatureValid: true}
	v := notification.Verifier{Secret: app.NotificationSecret}
	_, rotation, err := s.apps.NotificationChaos(ctx, clientID)
	if err != nil {
		return Entry{}, err
	}
	if rotation.Active(received) {
		v.PreviousSecret = rotation.PreviousSecret
	}
	if err := v.Verify(h, body); err != nil {
		e.SignatureValid, e.Error = false, err.Error()
	}
	err = s.inTx(ctx, func(r Repos) error {
		if err := r.Inbox().Add(ctx, e); err != nil {
			return err
		}
		return r.Inbox().Trim(ctx, app.ID, Keep)
	})
	return e, err
}

// List returns one page of the viewer's inbox entries, newest first.
func (s *Service) List(ctx context.Context, viewer string, page, limit int) (Page, error) {
	if _, err := identity.Authorize(ctx, identity.NotifyRead); err != nil {
		return Page{}, err
	}
	if page == 0 {
		page = 1
	}
	if limit == 0 {
		limit = DefaultLimit
	}
	if page < 1 || limit < 1 || limit > MaxLimit {
		return Page{}, errs.E(errs.InvalidQueryParam, "page must be at least 1 and limit between 1 and %d.", MaxLimit)
	}
	p, err := s.repo.List(ctx, viewer, page, limit)
	p.Page, p.Limit = page, limit
	return p, err
}

// kept is the headers an entry keeps: the first value of each, without
// credentials.
func kept(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		switch strings.ToLower(k) {
		case "authorization", "cookie", "proxy-authorization":
			continue
		}
		if len(v) > 0 {
			out[http.CanonicalHeaderKey(k)] = v[0]
		}
	}
	return out
}
