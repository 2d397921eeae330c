package dashboard

import (
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/notify"
)

// notificationsData fills the notifications page.
type notificationsData struct {
	Status   string
	Statuses []string
	Rows     []notificationItem
	Pager    pagerView
}

// notifications is GET /dashboard/notifications: the delivery log, newest
// first, by status.
func (h *notificationPages) notifications(w http.ResponseWriter, q *req) error {
	d := notificationsData{Statuses: []string{string(notify.Pending), string(notify.Delivered), string(notify.Failed)}}
	f := notify.Filter{Page: pageParam(q.Request), Limit: listLimit}
	if st, ok := notify.ParseStatus(q.URL.Query().Get("status")); ok {
		d.Status, f.Status = string(st), st
	}
	page, err := h.Notifications.List(q.ctx(), q.viewer(), f)
	if err != nil {
		return err
	}
	for _, n := range page.Items {
		d.Rows = append(d.Rows, notificationItemOf(n, nil))
	}
	d.Pager = pager(q.URL, f.Page, f.Limit, page.TotalItems)
	h.show(w, q, http.StatusOK, "notifications", "Notifications", "Notifications", d, notice(q), nil)
	return nil
}

// notificationData fills a notification's page.
type notificationData struct {
	notificationItem
	URL  string
	Body string
}

// notification is GET /dashboard/notifications/{id}: the notification,
// its body and every attempt.
func (h *notificationPages) notification(w http.ResponseWriter, q *req) error {
	id := q.PathValue("id")
	if err := uuid.Validate(id); err != nil || len(id) != 36 {
		return errs.NotFoundf("No notification %s.", id)
	}
	n, attempts, err := h.Notifications.Get(q.ctx(), q.viewer(), id)
	if err != nil {
		return err
	}
	d := notificationData{notificationItem: notificationItemOf(n, attempts), URL: n.URL, Body: string(n.Body)}
	h.show(w, q, http.StatusOK, "notification", "Notification", "Notifications", d, notice(q), nil)
	return nil
}

// redeliver is POST /dashboard/notifications/{id}/redeliver: the
// notification goes out again now; back to the page it was asked from (a
// payment's, the log, the notification's own).
func (h *notificationPages) redeliver(w http.ResponseWriter, q *req) error {
	id := q.PathValue("id")
	if err := uuid.Validate(id); err != nil || len(id) != 36 {
		return errs.NotFoundf("No notification %s.", id)
	}
	if _, err := h.Notifications.Redeliver(q.ctx(), q.viewer(), id); err != nil {
		return err
	}
	back := q.PostForm.Get("back")
	if !strings.HasPrefix(back, Prefix) {
		back = Prefix + "notifications/" + id
	}
	return done(w, q, localPath(back), "redeliver")
}

// inboxEntry is an entry of the sandbox inbox.
type inboxEntry struct {
	ID, ClientID, NotificationID, Type, Error, Body string
	ReceivedAt                                      time.Time
	Valid                                           bool
}

// inboxData fills the inbox page.
type inboxData struct {
	Rows  []inboxEntry
	Pager pagerView
}

// inbox is GET /dashboard/inbox (sandbox): what the sandbox's own receiver
// got, with the verdict on each signature.
func (h *notificationPages) inbox(w http.ResponseWriter, q *req) error {
	page := pageParam(q.Request)
	p, err := h.Inbox.List(q.ctx(), q.viewer(), page, listLimit)
	if err != nil {
		return err
	}
	var d inboxData
	for _, e := range p.Items {
		typ := e.Type
		if typ == "" {
			typ = "gateway"
		}
		d.Rows = append(d.Rows, inboxEntry{ID: e.ID, ClientID: e.ClientID, NotificationID: e.NotificationID, Type: typ,
			Error: e.Error, Body: string(e.Body), ReceivedAt: e.ReceivedAt, Valid: e.SignatureValid})
	}
	d.Pager = pager(q.URL, page, listLimit, p.TotalItems)
	h.show(w, q, http.StatusOK, "inbox", "Sandbox inbox", "Inbox", d, "", nil)
	return nil
}
