package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"

	"bankrail/internal/auth"
	"bankrail/internal/errs"
	"bankrail/internal/notify"
)

// notificationJSON is a notification in the delivery log.
type notificationJSON struct {
	ID            string          `json:"id"`
	CustomerID    string          `json:"customerId"`
	ClientID      string          `json:"clientId"`
	PaymentID     string          `json:"paymentId,omitempty"`
	Type          string          `json:"type"`
	URL           string          `json:"url,omitempty"`
	Status        notify.Status   `json:"status"`
	AttemptCount  int             `json:"attemptCount"`
	NextAttemptAt *time.Time      `json:"nextAttemptAt,omitempty"`
	CreatedAt     time.Time       `json:"createdAt"`
	DeliveredAt   *time.Time      `json:"deliveredAt,omitempty"`
	LastError     string          `json:"lastError,omitempty"`
	Body          json.RawMessage `json:"body"`
	Attempts      []attemptJSON   `json:"attempts,omitempty"`
}

// attemptJSON is one delivery attempt.
type attemptJSON struct {
	Number         int               `json:"number"`
	At             time.Time         `json:"at"`
	URL            string            `json:"url"`
	RequestHeaders map[string]string `json:"requestHeaders"`
	RequestBody    json.RawMessage   `json:"requestBody"`
	ResponseStatus int               `json:"responseStatus,omitempty"`
	ResponseBody   string            `json:"responseBody,omitempty"`
	LatencyMs      float64           `json:"latencyMs"`
	Error          string            `json:"error,omitempty"`
	Success        bool              `json:"success"`
}

func toNotificationJSON(n notify.Notification, attempts []notify.Attempt) notificationJSON {
	j := notificationJSON{ID: n.ID, CustomerID: n.CustomerID, ClientID: n.ClientID, PaymentID: n.PaymentID, Type: n.Type,
		URL: n.URL, Status: n.Status, AttemptCount: n.Attempts, CreatedAt: n.CreatedAt, LastError: n.LastError, Body: n.Body}
	if j.Type == "" {
		j.Type = "gateway"
	}
	if n.Status == notify.Pending {
		j.NextAttemptAt = &n.NextAttemptAt
	}
	if !n.DeliveredAt.IsZero() {
		j.DeliveredAt = &n.DeliveredAt
	}
	for _, a := range attempts {
		j.Attempts = append(j.Attempts, attemptJSON{Number: a.Number, At: a.At, URL: a.URL, RequestHeaders: a.RequestHeaders,
			RequestBody: a.RequestBody, ResponseStatus: a.ResponseStatus, ResponseBody: a.ResponseBody,
			LatencyMs: float64(a.Latency.Microseconds()) / 1000, Error: a.Error, Success: a.Success})
	}
	return j
}

// viewer is the customer the request acts for.
func viewer(r *http.Request) string {
	p, _ := auth.PrincipalFrom(r.Context())
	return p.CustomerID
}

// notificationID reads the {id} path parameter.
func notificationID(r *http.Request) (string, error) {
	id := r.PathValue("id")
	if _, err := uuid.Parse(id); err != nil || len(id) != 36 {
		return "", errs.E(errs.MalformedPathParam, "Notification id %q is not a uuid.", id)
	}
	return id, nil
}

// listNotifications serves GET /notifications.
func (s *Server) listNotifications(w http.ResponseWriter, r *http.Request) error {
	f, err := notificationFilter(r)
	if err != nil {
		return err
	}
	page, err := s.Notifications.List(r.Context(), viewer(r), f)
	if err != nil {
		return err
	}
	items := make([]notificationJSON, 0, len(page.Items))
	for _, n := range page.Items {
		items = append(items, toNotificationJSON(n, nil))
	}
	h := w.Header()
	h.Set("page", strconv.Itoa(page.Page))
	h.Set("limit", strconv.Itoa(page.Limit))
	h.Set("page-count", strconv.Itoa((page.TotalItems+page.Limit-1)/page.Limit))
	h.Set("total-items", strconv.Itoa(page.TotalItems))
	writeJSON(w, http.StatusOK, items)
	return nil
}

// notificationFilter parses the query of GET /notifications.
func notificationFilter(r *http.Request) (notify.Filter, error) {
	q := r.URL.Query()
	f := notify.Filter{PaymentID: q.Get("paymentId")}
	if v := q.Get("status"); v != "" {
		st, ok := notify.ParseStatus(v)
		if !ok {
			return f, errs.E(errs.InvalidQueryParam, "status must be PENDING, DELIVERED or FAILED, got %q.", v)
		}
		f.Status = st
	}
	for name, dst := range map[string]*time.Time{"createdAt[gte]": &f.CreatedFrom, "createdAt[lte]": &f.CreatedTo} {
		if v := q.Get(name); v != "" {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				return f, errs.E(errs.InvalidQueryParam, "%s must be an ISO 8601 date-time such as 2026-06-01T09:00:00Z, got %q.", name, v)
			}
			*dst = t
		}
	}
	for name, dst := range map[string]*int{"page": &f.Page, "limit": &f.Limit} {
		if v := q.Get(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return f, errs.E(errs.InvalidQueryParam, "%s must be a positive integer, got %q.", name, v)
			}
			*dst = n
		}
	}
	return f, nil
}

// getNotification serves GET /notifications/{id}.
func (s *Server) getNotification(w http.ResponseWriter, r *http.Request) error {
	id, err := notificationID(r)
	if err != nil {
		return err
	}
	n, attempts, err := s.Notifications.Get(r.Context(), viewer(r), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toNotificationJSON(n, attempts))
	return nil
}

// redeliverNotification serves POST /notifications/{id}/redeliver.
func (s *Server) redeliverNotification(w http.ResponseWriter, r *http.Request) error {
	id, err := notificationID(r)
	if err != nil {
		return err
	}
	n, err := s.Notifications.Redeliver(r.Context(), viewer(r), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, toNotificationJSON(n, nil))
	return nil
}

// testNotification serves POST /notifications/test: a signed {} sent now
// to the application's notification URL; its success resumes a pause.
func (s *Server) testNotification(w http.ResponseWriter, r *http.Request) error {
	p, _ := auth.PrincipalFrom(r.Context())
	n, attempts, err := s.Notifications.Test(r.Context(), p.CustomerID, p.ClientID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toNotificationJSON(n, attempts))
	return nil
}

// metrics serves GET /metrics (Prometheus text format).
func (s *Server) metrics(w http.ResponseWriter, r *http.Request) error {
	s.Metrics.ServeHTTP(w, r)
	return nil
}
