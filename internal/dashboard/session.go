package dashboard

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"time"

	"github.com/bankrail/bankrail/internal/auth"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/webguard"
)

// Cookie names. In production the session cookie takes the __Host- prefix:
// browsers accept it only Secure, for the whole host (no Domain) and Path=/.
const (
	sessionCookie       = "bankrail_dashboard"
	secureSessionCookie = "__Host-bankrail_dashboard"
	signInCookie        = "bankrail_dashboard_signin" // the sign-in form's token (no session yet)
	csrfField           = "csrf"
	maxFormBytes        = 64 << 10
)

// req is one request of a signed-in person.
type req struct {
	*http.Request
	s   auth.Session
	p   auth.Principal
	now time.Time // the service clock
}

// ctx is the request's context.
func (q *req) ctx() context.Context { return q.Context() }

// viewer is the customer the services read for.
func (q *req) viewer() string { return q.p.CustomerID }

// pageFunc is a page or an action that returns its error instead of
// writing it.
type pageFunc func(w http.ResponseWriter, q *req) error

// cookieName is the session cookie's name in this mode.
func (h *base) cookieName() string {
	if h.Production {
		return secureSessionCookie
	}
	return sessionCookie
}

// randomToken is 32 random bytes, base64url.
func randomToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // never on a supported platform
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// hashID is the stored form of a session id.
func hashID(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

// equalTokens compares two tokens in constant time; empty never matches.
func equalTokens(a, b string) bool {
	return a != "" && b != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// current reads the request's session: unknown, expired (idle or past its
// end, on the service clock), or of a user changed or disabled since is no
// session (the cookie is cleared). Activity is recorded at most once a
// minute.
func (h *base) current(w http.ResponseWriter, r *http.Request) (*req, bool) {
	c, err := r.Cookie(h.cookieName())
	if err != nil || c.Value == "" || len(c.Value) > 100 {
		return nil, false
	}
	ctx := r.Context()
	idHash := hashID(c.Value)
	s, err := h.Sessions.Session(ctx, idHash)
	if errs.Is(err, errs.NotFound) {
		h.clearSession(w)
		return nil, false
	}
	if err != nil {
		h.Log.ErrorContext(ctx, "read console session", "err", err)
		return nil, false
	}
	now := h.Clock.Now()
	if !now.Before(s.ExpiresAt) || now.Sub(s.SeenAt) >= IdleTimeout {
		h.endSession(ctx, w, idHash)
		return nil, false
	}
	p := s.Principal()
	if err := h.Auth.CheckPrincipal(ctx, p); err != nil {
		if !errs.Is(err, errs.Unauthorised) {
			h.Log.ErrorContext(ctx, "check console session", "err", err)
			return nil, false
		}
		h.endSession(ctx, w, idHash)
		return nil, false
	}
	if now.Sub(s.SeenAt) >= touchEvery {
		if err := h.Sessions.TouchSession(ctx, idHash, now); err != nil {
			h.Log.WarnContext(ctx, "record console activity", "err", err)
		}
	}
	r = r.WithContext(auth.WithPrincipal(ctx, p)) // the services check it at their entry
	return &req{Request: r, s: s, p: p, now: now}, true
}

// endSession deletes a session and clears its cookie.
func (h *base) endSession(ctx context.Context, w http.ResponseWriter, idHash string) {
	if err := h.Sessions.DeleteSession(ctx, idHash); err != nil {
		h.Log.WarnContext(ctx, "delete console session", "err", err)
	}
	h.clearSession(w)
}

// clearSession tells the browser to forget its session cookie.
func (h *base) clearSession(w http.ResponseWriter) {
	http.SetCookie(w, h.sessionCookie("", -1))
}

// sessionCookie is the session cookie with value; maxAge < 0 deletes it.
func (h *base) sessionCookie(value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: h.cookieName(), Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		Secure: h.Production, SameSite: http.SameSiteLaxMode}
}

// signInPath is the sign-in page that comes back to r's page afterwards.
func signInPath(r *http.Request, notice string) string {
	q := url.Values{}
	if r.Method == http.MethodGet {
		q.Set("next", r.URL.RequestURI())
	}
	if notice != "" {
		q.Set("notice", notice)
	}
	if len(q) == 0 {
		return Prefix + "sign-in"
	}
	return Prefix + "sign-in?" + q.Encode()
}

// page guards a page: a session (else the sign-in page) and the
// permission op needs (else 403; the services check it again).
func (h *base) page(op identity.Operation, fn pageFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q, ok := h.current(w, r)
		if !ok {
			http.Redirect(w, r, signInPath(r, ""), http.StatusSeeOther)
			return
		}
		if op != "" && !may(q.p, op) {
			h.renderError(w, r, q, http.StatusForbidden, fmt.Sprintf("Your role %s may not open this page.", q.p.Role))
			return
		}
		if err := fn(w, q); err != nil {
			h.fail(w, q, err)
		}
	}
}

// action guards a form's POST: a session (else the sign-in page), a form
// from this site with the session's synchronizer token (else 403, nothing
// done), and the permission op needs (else 403, as the API's
// ACCESS_DENIED; the services check it again). The change is audited as the API's are, its action the
// route's pattern.
func (h *base) action(op identity.Operation, fn pageFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		if err := r.ParseForm(); err != nil {
			h.renderError(w, r, nil, http.StatusBadRequest, "The form could not be read.")
			return
		}
		q, ok := h.current(w, r)
		if !ok {
			http.Redirect(w, r, signInPath(r, "expired"), http.StatusSeeOther)
			return
		}
		h.act(w, q, op, fn)
	}
}

// act runs the action fn of q's form once the form is trusted: from this
// site with the session's synchronizer token (else 403, nothing done), by
// a role that may take op (else 403); the change is audited as the API's
// are, its action the route's pattern.
func (h *base) act(w http.ResponseWriter, q *req, op identity.Operation, fn pageFunc) {
	if !sameOrigin(q.Request) || !equalTokens(q.PostForm.Get(csrfField), q.s.CSRFToken) {
		h.refuseForm(w, q)
		return
	}
	if op != "" && !may(q.p, op) {
		h.refuseRole(w, q)
		return
	}
	q.Request = webguard.Audited(q.Request, q.Pattern, q.p, q.now, requestID(w), h.clientAddr(q.Request))
	if err := fn(w, q); err != nil {
		h.fail(w, q, err)
	}
}

// refuseForm answers a form sent from another site or without the
// session's token: 403, nothing done.
func (h *base) refuseForm(w http.ResponseWriter, q *req) {
	h.renderError(w, q.Request, q, http.StatusForbidden, "This form is out of date or was sent from another site; nothing was done. Open the page again and retry.")
}

// refuseRole answers an action the role may not take: 403, nothing done.
func (h *base) refuseRole(w http.ResponseWriter, q *req) {
	h.renderError(w, q.Request, q, http.StatusForbidden, fmt.Sprintf("Your role %s may not do this; nothing was done.", q.p.Role))
}

// upload guards a form that sends a file (multipart/form-data) of at most
// limit bytes: as action, but the session, the origin and the role are
// checked before the body is read (files beyond a small size are spooled
// to temporary files, removed when the action ends).
func (h *base) upload(op identity.Operation, limit int64, fn pageFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		q, ok := h.current(w, r)
		if !ok {
			http.Redirect(w, r, signInPath(r, "expired"), http.StatusSeeOther)
			return
		}
		if !sameOrigin(r) {
			h.refuseForm(w, q)
			return
		}
		if !may(q.p, op) {
			h.refuseRole(w, q)
			return
		}
		q.Body = http.MaxBytesReader(w, q.Body, limit+maxFormBytes)
		err := q.ParseMultipartForm(1 << 20)
		if q.MultipartForm != nil {
			defer func() { _ = q.MultipartForm.RemoveAll() }()
		}
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge) || err == nil && fileOver(q.MultipartForm, limit):
			h.renderError(w, r, q, http.StatusRequestEntityTooLarge,
				fmt.Sprintf("The file is larger than %s, the most this page takes; nothing was done.", byteSize(limit)))
			return
		case err != nil:
			h.renderError(w, r, q, http.StatusBadRequest, "The form could not be read; nothing was done. Open the page again and retry.")
			return
		}
		h.act(w, q, op, fn)
	}
}

// fileOver reports whether a file of form is larger than limit: the body's
// bound leaves room for the form's other fields, so a file may pass it.
func fileOver(form *multipart.Form, limit int64) bool {
	for _, files := range form.File {
		for _, f := range files {
			if f.Size > limit {
				return true
			}
		}
	}
	return false
}

// crossOrigin refuses requests another site's page sends (Sec-Fetch-Site,
// else Origin against Host), as the start page's demo button does.
var crossOrigin = http.NewCrossOriginProtection()

// sameOrigin reports whether a POST comes from this site: browsers send
// Sec-Fetch-Site or Origin with every form; a client that sends neither (a
// test, curl) is judged by the token alone.
func sameOrigin(r *http.Request) bool { return crossOrigin.Check(r) == nil }

// requestID is the id the HTTP server gave the request (X-Request-Id,
// already on the response).
func requestID(w http.ResponseWriter) string { return w.Header().Get("X-Request-Id") }

// clientAddr is the address sign-ins are throttled and audited by.
func (h *base) clientAddr(r *http.Request) string { return h.Proxies.ClientAddr(r) }

// ExpireSessions deletes the sessions that ended and the known devices
// that expired (a periodic worker).
func (h *Handler) ExpireSessions(ctx context.Context) error {
	now := h.b.Clock.Now()
	if _, err := h.b.Sessions.DeleteSessionsBefore(ctx, now, now.Add(-IdleTimeout)); err != nil {
		return err
	}
	_, err := h.b.Sessions.ForgetConsoleDevicesBefore(ctx, now)
	return err
}
