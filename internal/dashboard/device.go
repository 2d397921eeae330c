package dashboard

import (
	"context"
	"net/http"
	"time"

	"github.com/bankrail/bankrail/internal/auth"
)

// The known-device cookie: a browser where a user signed in holds a random
// id (the store keeps its hash), sent with later sign-ins so that the
// user's own browser is throttled apart from everyone else (see
// auth.ConsoleSignIn.Device). It is HttpOnly and SameSite=Strict: another
// site can neither read it nor send it with a forged sign-in.
const (
	deviceCookie       = "bankrail_device"
	secureDeviceCookie = "__Host-bankrail_device"
)

// deviceCookieName is the device cookie's name in this mode.
func (h *base) deviceCookieName() string {
	if h.Production {
		return secureDeviceCookie
	}
	return deviceCookie
}

// knownDevice is the hash of r's known-device cookie, "" without one.
func (h *base) knownDevice(r *http.Request) string {
	c, err := r.Cookie(h.deviceCookieName())
	if err != nil || c.Value == "" || len(c.Value) > 100 {
		return ""
	}
	return hashID(c.Value)
}

// rememberDevice makes the browser a known device of userID after a
// successful sign-in: a new id each time (the browser's previous one, if
// any, is left to expire), so that a browser two people share is the
// known device of the last one to sign in. A failure is logged: the
// sign-in stands.
func (h *base) rememberDevice(ctx context.Context, w http.ResponseWriter, userID string) {
	id := randomToken()
	if err := h.Auth.RememberDevice(ctx, userID, hashID(id)); err != nil {
		h.Log.WarnContext(ctx, "remember the console device", "err", err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: h.deviceCookieName(), Value: id, Path: "/", MaxAge: int(auth.KnownDeviceLifetime / time.Second),
		HttpOnly: true, Secure: h.Production, SameSite: http.SameSiteStrictMode})
}
