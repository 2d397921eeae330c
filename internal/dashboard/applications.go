package dashboard

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/notify"
)

func (h *applicationPages) register(mux *http.ServeMux) {
	mux.HandleFunc("GET /dashboard/applications", h.page(identity.AppRead, h.applications))
	mux.HandleFunc("GET /dashboard/applications/{id}", h.page(identity.AppRead, h.application))
	mux.HandleFunc("POST /dashboard/applications/{id}/notification-url", h.action(identity.AppChange, h.setURL))
	if h.Settings != nil {
		mux.HandleFunc("POST /dashboard/applications/{id}/rotate-secret", h.action(identity.AppChange, h.rotate))
	}
}

// applicationRow is an application in the list.
type applicationRow struct {
	ID, ClientID, NotificationURL, Customer string
	CreatedAt                               time.Time
}

// applications is GET /dashboard/applications: the applications of the
// viewer's customer and of the customers below it (a PSP's merchants').
func (h *applicationPages) applications(w http.ResponseWriter, q *req) error {
	apps, err := h.Identity.ApplicationsBelow(q.ctx(), q.viewer())
	if err != nil {
		return err
	}
	names := h.namer(q)
	var rows []applicationRow
	for _, a := range apps {
		rows = append(rows, applicationRow{ID: a.ID, ClientID: a.ClientID, NotificationURL: a.NotificationURL,
			Customer: names(a.CustomerID), CreatedAt: a.CreatedAt})
	}
	h.show(w, q, http.StatusOK, "applications", "Applications", "Applications", rows, "", nil)
	return nil
}

// overlaps are the rotation form's choices: how long the previous secret
// keeps signing.
var overlaps = []struct {
	label string
	d     time.Duration
}{{"no overlap", 0}, {"1 hour", time.Hour}, {"1 day", 24 * time.Hour}, {"7 days", 7 * 24 * time.Hour}}

// applicationData fills an application's page.
type applicationData struct {
	ID, ClientID, Customer string
	URL                    string // as stored, or as typed after a refused change
	CanSetURL              bool   // the service that vets a URL is there
	CreatedAt              time.Time
	PreviousUntil          time.Time // while the previous secret still signs
	Overlaps               []option
	NewSecret              string // once, right after a rotation
}

// application is GET /dashboard/applications/{id}.
func (h *applicationPages) application(w http.ResponseWriter, q *req) error {
	a, err := visibleApplication(h.base, q, q.PathValue("id"))
	if err != nil {
		return err
	}
	return h.applicationPage(w, q, a, http.StatusOK, notice(q), nil, a.NotificationURL, "")
}

// visibleApplication reads application id if the viewer's customer is its
// customer or above it; anything else is RESOURCE_NOT_FOUND.
func visibleApplication(h *base, q *req, id string) (identity.Application, error) {
	return h.Identity.Application(q.ctx(), q.viewer(), id)
}

// applicationPage writes an application's page.
func (h *applicationPages) applicationPage(w http.ResponseWriter, q *req, a identity.Application, status int, note string,
	problem *problemView, url, secret string) error {
	d := applicationData{ID: a.ID, ClientID: a.ClientID, Customer: h.namer(q)(a.CustomerID), URL: url, CreatedAt: a.CreatedAt,
		NewSecret: secret, CanSetURL: true}
	if h.Settings != nil {
		_, rot, err := h.Settings.Chaos(q.ctx(), a.ClientID)
		if err != nil {
			return err
		}
		now, err := clock.For(q.ctx(), h.Clock, a.CustomerID)
		if err != nil {
			return err
		}
		if rot.Active(now) {
			d.PreviousUntil = rot.PreviousUntil
		}
		for _, o := range overlaps {
			d.Overlaps = append(d.Overlaps, option{Value: strconv.FormatInt(int64(o.d/time.Second), 10), Label: o.label, Selected: o.d == 24*time.Hour})
		}
	}
	h.show(w, q, status, "application", "Application "+a.ClientID, "Applications", d, note, problem)
	return nil
}

// setURL is POST /dashboard/applications/{id}/notification-url: where the
// application's notifications go from now on (empty: nowhere).
func (h *applicationPages) setURL(w http.ResponseWriter, q *req) error {
	a, err := visibleApplication(h.base, q, q.PathValue("id"))
	if err != nil {
		return err
	}
	url := strings.TrimSpace(q.PostForm.Get("url"))
	if _, err := h.Identity.SetNotificationURL(q.ctx(), q.viewer(), a.ID, url); err != nil {
		problem, perr := problemOf(err)
		if perr != nil {
			return perr
		}
		return h.applicationPage(w, q, a, statusOf(err), "", problem, url, "")
	}
	return done(w, q, Prefix+"applications/"+a.ID, "url")
}

// rotate is POST /dashboard/applications/{id}/rotate-secret: a new
// notification secret, shown once on the page this answers (not after a
// redirect: it is never stored where a later page could read it).
func (h *applicationPages) rotate(w http.ResponseWriter, q *req) error {
	a, err := visibleApplication(h.base, q, q.PathValue("id"))
	if err != nil {
		return err
	}
	secs, err := strconv.ParseInt(q.PostForm.Get("overlap"), 10, 64)
	if err != nil || secs < 0 || secs > int64(notify.MaxOverlap/time.Second) {
		return h.applicationPage(w, q, a, http.StatusUnprocessableEntity, "", &problemView{Message: "Choose how long the previous secret keeps signing."},
			a.NotificationURL, "")
	}
	rot, err := h.Settings.RotateSecret(q.ctx(), a.CustomerID, a.ClientID, time.Duration(secs)*time.Second)
	if err != nil {
		return err
	}
	return h.applicationPage(w, q, a, http.StatusOK, "The notification secret was rotated. Copy it now: it is not shown again.",
		nil, a.NotificationURL, rot.Secret)
}
