package httpapi

import (
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/auth"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/paging"
)

// notificationOf renders a notification of the delivery log with its
// attempts (left out when there are none).
func notificationOf(n notify.Notification, attempts []notify.Attempt) api.Notification {
	j := api.Notification{ID: n.ID, CustomerID: n.CustomerID, ClientID: n.ClientID, PaymentID: opt(n.PaymentID), Type: n.Type,
		URL: opt(n.URL), Status: api.NotificationStatus(n.Status), AttemptCount: int64(n.Attempts), CreatedAt: n.CreatedAt,
		LastError: opt(n.LastError), Body: n.Body}
	if j.Type == "" {
		j.Type = "gateway"
	}
	if n.ChaosMarks != "" {
		marks := strings.Split(n.ChaosMarks, ",")
		j.Chaos = &marks
	}
	if n.Status == notify.Pending {
		next := n.NextAttemptAt
		j.NextAttemptAt = &next
	}
	if !n.DeliveredAt.IsZero() {
		delivered := n.DeliveredAt
		j.DeliveredAt = &delivered
	}
	if len(attempts) > 0 {
		list := make([]api.NotificationAttempt, 0, len(attempts))
		for _, a := range attempts {
			at := api.NotificationAttempt{Number: int64(a.Number), At: a.At, URL: a.URL, RequestHeaders: a.RequestHeaders,
				RequestBody: a.RequestBody, ResponseBody: opt(a.ResponseBody),
				LatencyMs: float64(a.Latency.Microseconds()) / 1000, Error: opt(a.Error), Success: a.Success}
			at.Chaos = opt(a.Chaos)
			if a.ResponseStatus != 0 {
				status := int64(a.ResponseStatus)
				at.ResponseStatus = &status
			}
			list = append(list, at)
		}
		j.Attempts = &list
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
	return writeListOf(w, r, listPaging{Page: page.Page, Limit: page.Limit},
		paging.Page[notify.Notification]{Items: page.Items, Total: page.TotalItems, Next: page.Next}, err,
		func(n notify.Notification) api.Notification { return notificationOf(n, nil) })
}

// notificationFilter parses the query of GET /notifications.
func notificationFilter(r *http.Request) (notify.Filter, error) {
	q, err := listQuery(r, notificationFilters)
	if err != nil {
		return notify.Filter{}, err
	}
	var f notify.Filter
	if f.PaymentID, err = uuidParam(q, "paymentId"); err != nil {
		return f, err
	}
	if v := q.Get("status"); v != "" {
		st, ok := notify.ParseStatus(v)
		if !ok {
			return f, errs.E(errs.InvalidQueryParam, "status must be PENDING, DELIVERED or FAILED, got %q.", v)
		}
		f.Status = st
	}
	if f.CreatedFrom, err = timeParam(q, "createdAt[gte]"); err != nil {
		return f, err
	}
	if f.CreatedTo, err = timeParam(q, "createdAt[lte]"); err != nil {
		return f, err
	}
	lp, err := readPaging(q, notify.DefaultLimit, notify.MaxLimit)
	f.Page, f.Limit, f.After = lp.Page, lp.Limit, lp.After
	return f, err
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
	writeJSON(w, http.StatusOK, notificationOf(n, attempts))
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
	writeJSON(w, http.StatusAccepted, notificationOf(n, nil))
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
	writeJSON(w, http.StatusOK, notificationOf(n, attempts))
	return nil
}

// resumeNotifications serves POST /notifications/resume: the pause of the
// caller's application ends without a test notification.
func (s *Server) resumeNotifications(w http.ResponseWriter, r *http.Request) error {
	p, _ := auth.PrincipalFrom(r.Context())
	resumed, err := s.Notifications.Resume(r.Context(), p.ClientID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.NotificationResume{ClientID: p.ClientID, Resumed: resumed})
	return nil
}

// metrics serves GET /metrics (Prometheus text format).
func (s *Server) metrics(w http.ResponseWriter, r *http.Request) error {
	s.Metrics.ServeHTTP(w, r)
	return nil
}
