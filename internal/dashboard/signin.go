package dashboard

import (
	"context"
	"math"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/auth"
	"github.com/bankrail/bankrail/internal/errs"
)

// localPath is next if it is a page of the console, else the payments.
func localPath(next string) string {
	if strings.HasPrefix(next, Prefix) && !strings.Contains(next, `\`) {
		if u, err := url.Parse(next); err == nil && u.Host == "" && u.Scheme == "" && u.User == nil &&
			strings.HasPrefix(path.Clean(u.Path)+"/", Prefix) && !strings.Contains(u.Path, "..") {
			return next
		}
	}
	return Prefix + "payments"
}

// after is where a sign-in goes on to: next, unless it is the default
// (the payments), which is the first page p may open (an operator's
// statements).
func (h *signInPages) after(next string, p auth.Principal) string {
	if next == Prefix+"payments" {
		return h.landing(p)
	}
	return next
}

// signInNotices are the fixed messages the sign-in page shows for its
// notice parameter (never the parameter itself).
var signInNotices = map[string]string{
	"expired":    "Your session ended; sign in again.",
	"signed-out": "You are signed out.",
	"reset":      "The sandbox is back at its seed state, sessions included: sign in again.",
}

// signInData fills the sign-in page.
type signInData struct {
	Username string
	Next     string
	Token    string // the form's token, also in the sign-in cookie
}

// showSignIn is GET /dashboard/sign-in.
func (h *signInPages) showSignIn(w http.ResponseWriter, r *http.Request) {
	next := localPath(r.URL.Query().Get("next"))
	if q, ok := h.current(w, r); ok {
		http.Redirect(w, r, h.after(next, q.p), http.StatusSeeOther)
		return
	}
	h.renderSignIn(w, r, http.StatusOK, signInData{Next: next}, signInNotices[r.URL.Query().Get("notice")], "")
}

// renderSignIn writes the sign-in form with a fresh form token: the login
// form has no session yet, so its token is bound to a short-lived cookie
// of its own (double submit), which another site can neither read nor set.
func (h *signInPages) renderSignIn(w http.ResponseWriter, r *http.Request, status int, d signInData, notice, problem string) {
	d.Token = randomToken()
	http.SetCookie(w, &http.Cookie{Name: signInCookie, Value: d.Token, Path: Prefix, MaxAge: int(time.Hour / time.Second),
		HttpOnly: true, Secure: h.Production, SameSite: http.SameSiteStrictMode})
	v := view{Title: "Sign in", Notice: notice, Data: d}
	if problem != "" {
		v.Problem = &problemView{Message: problem}
	}
	h.render(w, r, status, "signin", v)
}

// signIn is POST /dashboard/sign-in.
func (h *signInPages) signIn(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		h.renderError(w, r, nil, http.StatusBadRequest, "The form could not be read.")
		return
	}
	d := signInData{Username: strings.TrimSpace(r.PostForm.Get("username")), Next: localPath(r.PostForm.Get("next"))}
	c, err := r.Cookie(signInCookie)
	if err != nil || !sameOrigin(r) || !equalTokens(r.PostForm.Get(csrfField), c.Value) {
		h.renderSignIn(w, r, http.StatusForbidden, d, "", "This sign-in form is out of date or was sent from another site. Sign in again.")
		return
	}
	ctx := r.Context()
	now := h.Clock.Now()
	addr := h.clientAddr(r)
	device := h.knownDevice(r)
	user, err := h.Auth.SignIn(ctx, auth.ConsoleSignIn{Username: d.Username, Password: r.PostForm.Get("password"), RemoteAddr: addr,
		AddrUntrusted: !h.Proxies.Trustworthy(r), Device: device})
	if err != nil {
		status, msg := http.StatusInternalServerError, "Something went wrong on our side; try again in a moment."
		e, isErr := err.(*errs.Error)
		switch {
		case errs.Is(err, errs.ValidationFailure):
			status, msg = http.StatusUnprocessableEntity, "Enter your username and your password."
		case errs.Is(err, errs.Unauthorised):
			status, msg = http.StatusUnauthorized, "Wrong username or password."
		case errs.Is(err, errs.TooManyRequests) && isErr:
			status, msg = http.StatusTooManyRequests, e.Message
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(e.RetryAfter.Seconds()))))
		default:
			h.Log.ErrorContext(ctx, "console sign-in", "err", err, "request_id", requestID(w))
		}
		if status == http.StatusUnauthorized || status == http.StatusTooManyRequests {
			entry := audit.Entry{OccurredAt: now.UTC(), Action: ActionSignInFailed, RequestID: requestID(w), IP: addr}
			if err := h.SignIns.RecordFailedSignIn(context.WithoutCancel(ctx), entry, d.Username, ""); err != nil {
				h.Log.ErrorContext(ctx, "audit a refused console sign-in", "err", err)
			}
		}
		h.renderSignIn(w, r, status, d, "", msg)
		return
	}
	// A new id at every sign-in (no fixation); the old session, if any, ends.
	if old, err := r.Cookie(h.cookieName()); err == nil && old.Value != "" && len(old.Value) <= 100 {
		if err := h.Sessions.DeleteSession(ctx, hashID(old.Value)); err != nil {
			h.Log.WarnContext(ctx, "end the previous console session", "err", err)
		}
	}
	id := randomToken()
	s := auth.Session{IDHash: hashID(id), UserID: user.ID, Username: user.Username, CustomerID: user.CustomerID, Role: user.Role,
		Generation: user.TokenGeneration, CSRFToken: randomToken(), CreatedAt: now, SeenAt: now, ExpiresAt: now.Add(MaxLifetime)}
	actx, _ := audit.With(ctx, audit.Entry{OccurredAt: now.UTC(), CustomerID: user.CustomerID, ActorType: audit.ActorUser,
		ActorID: user.ID, Action: ActionSignIn, RequestID: requestID(w), IP: addr})
	if err := h.Sessions.CreateSession(actx, s); err != nil {
		h.Log.ErrorContext(ctx, "create console session", "err", err, "request_id", requestID(w))
		h.renderSignIn(w, r, http.StatusInternalServerError, d, "", "Something went wrong on our side; try again in a moment.")
		return
	}
	d.Next = h.after(d.Next, s.Principal())
	http.SetCookie(w, h.sessionCookie(id, int(MaxLifetime/time.Second)))
	h.rememberDevice(ctx, w, user.ID)
	http.SetCookie(w, &http.Cookie{Name: signInCookie, Path: Prefix, MaxAge: -1, HttpOnly: true, Secure: h.Production,
		SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, d.Next, http.StatusSeeOther)
}

// signOut is POST /dashboard/sign-out.
func (h *signInPages) signOut(w http.ResponseWriter, q *req) error {
	e, _ := audit.From(q.ctx()).Entry()
	e.Action, e.ResourceType, e.ResourceID = ActionSignOut, "", ""
	ctx, _ := audit.With(context.WithoutCancel(q.ctx()), e)
	if err := h.Sessions.DeleteSession(ctx, q.s.IDHash); err != nil {
		return err
	}
	h.clearSession(w)
	http.Redirect(w, q.Request, Prefix+"sign-in?notice=signed-out", http.StatusSeeOther)
	return nil
}
