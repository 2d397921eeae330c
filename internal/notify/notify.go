// Package notify is bankrail's notification domain: the message other
// features emit inside their own transaction, the stored notification and its
// delivery attempts, the exact wire format (headers and HMAC signature), the
// retry schedule and the pause rule, and builders for gateway and Connect
// bodies. It knows nothing of HTTP servers or SQL; the outbox lives in the
// store and the HTTP client in notify/dispatch.
package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"time"
	"unicode/utf8"

	"github.com/bankrail/bankrail/internal/paging"
)

// Message is one notification to send, written by a feature in the same
// transaction as the state change that causes it (see store's enqueue).
type Message struct {
	CustomerID    string // the customer the notification concerns (visibility in the delivery log)
	ApplicationID string // the application whose secret signs it and whose URL receives it...
	ClientID      string // ...or its client id, when ApplicationID is empty
	PaymentID     string // ordering key: notifications of one payment go out in order; may be empty
	Type          string // X-Service-Type; empty for gateway notifications
	URL           string // the payment's communication.notifications.url; empty = the application's URL
	Body          []byte // compact JSON: exactly the bytes signed and sent
}

// Validate reports a message that cannot be stored (a programming error of
// the emitting feature, not a client error).
func (m Message) Validate() error {
	switch {
	case m.CustomerID == "":
		return fmt.Errorf("notification message: CustomerID is required")
	case m.ApplicationID == "" && m.ClientID == "":
		return fmt.Errorf("notification message: ApplicationID or ClientID is required")
	case !json.Valid(m.Body) || !utf8.Valid(m.Body):
		return fmt.Errorf("notification message: Body must be valid UTF-8 JSON")
	}
	if m.URL != "" {
		if u, err := url.Parse(m.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("notification message: URL %q must be an http(s) URL", m.URL)
		}
	}
	return nil
}

// Status of a notification.
type Status string

// Statuses. A paused application's notifications stay PENDING (held).
const (
	Pending   Status = "PENDING"   // waiting for its first attempt, a retry, or a resume
	Delivered Status = "DELIVERED" // a 2xx was received
	Failed    Status = "FAILED"    // every retry failed; redeliver to try again
)

// ParseStatus validates a status name.
func ParseStatus(s string) (Status, bool) {
	switch st := Status(s); st {
	case Pending, Delivered, Failed:
		return st, true
	}
	return "", false
}

// Notification is a stored notification.
type Notification struct {
	ID            string // also X-Service-Notification-Id
	CustomerID    string
	ApplicationID string
	ClientID      string
	PaymentID     string
	Type          string
	URL           string // override; empty = the application's URL at delivery time
	Body          []byte
	Status        Status
	Attempts      int // attempts made so far
	RetryFrom     int // Attempts when last redelivered: the schedule restarts there
	NextAttemptAt time.Time
	CreatedAt     time.Time
	DeliveredAt   time.Time // zero unless delivered
	LastError     string
	ChaosMarks    string // sandbox chaos applied to it, comma-separated (delayed, reordered, ...)
	ChaosHold     string // the chaos hold it waits under; empty when none
}

// Attempt is one delivery attempt, recorded whatever its outcome.
type Attempt struct {
	ID             string
	NotificationID string
	Number         int
	At             time.Time
	URL            string
	RequestHeaders map[string]string
	RequestBody    []byte
	ResponseStatus int    // 0 when no response arrived
	ResponseBody   string // the first bytes of the answer
	Latency        time.Duration
	Error          string
	Success        bool
	NoURL          bool   // nothing was sent: neither the payment nor the application has a URL
	Chaos          string // made by sandbox chaos: "duplicate"; empty for a normal attempt
}

// Filter narrows a list of notifications.
type Filter struct {
	PaymentID   string
	Status      Status
	CreatedFrom *time.Time // inclusive; nil = unbounded (the zero time is a bound)
	CreatedTo   *time.Time // inclusive; nil = unbounded (the zero time is a bound)
	Page, Limit int
	// After, when set, starts the page right after this position (the
	// cursor parameter); Page is then the number the cursor carried.
	After *paging.Position
}

// Page is one page of notifications, newest first.
type Page struct {
	Items       []Notification
	TotalItems  int
	Page, Limit int // as used, defaults applied
	// Next is the position after the last item when a page follows.
	Next *paging.Position
}

// Outbox writes messages inside the unit of work of the state change that
// causes them (the store implements it): they are sent if and only if that
// change commits, and within a payment in the order written.
type Outbox interface {
	Enqueue(ctx context.Context, at time.Time, msgs ...Message) error
}
