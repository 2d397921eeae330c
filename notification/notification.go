// Package notification is what a merchant's server needs to receive
// bankrail's signed notifications: it checks the X-Service-Signed signature
// (HMAC-SHA256 of body + "|" + X-Service-Timed + "|" + version, keyed with the
// application's notification secret), optionally checks that X-Service-Timed
// is fresh, and decodes the body into the struct of its X-Service-Type
// (Gateway, Connect, Refund, Payout, AccountHolderVerification, Mandate,
// ChannelPayment, Report: see DecodeBody and Types).
//
// A receiver answers any 2xx status once it has stored the notification;
// anything else (or no answer within 10 s) makes bankrail retry.
//
//	func handle(w http.ResponseWriter, r *http.Request) {
//		n, err := notification.Verifier{Secret: secret}.Read(r)
//		if err != nil {
//			http.Error(w, "bad notification", http.StatusBadRequest)
//			return
//		}
//		switch b := n.Body.(type) { // the struct of n.Type (DecodeBody)
//		case *notification.Gateway: /* b.Payment, b.Status ... */
//		case *notification.Refund: /* b.Refund, b.Status ... */
//		}
//		w.WriteHeader(http.StatusNoContent)
//	}
package notification

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Header names and fixed values of every notification.
const (
	HeaderTimed          = "X-Service-Timed"           // 14 digits, YYYYMMDDhhmmss, UTC
	HeaderSigned         = "X-Service-Signed"          // lowercase hex HMAC-SHA256
	HeaderType           = "X-Service-Type"            // absent on gateway notifications
	HeaderNotificationID = "X-Service-Notification-Id" // the same uuid on every attempt
	UserAgent            = "Service/2.0"
	Version              = "2.0" // the version in UserAgent, part of the signed message
	TimedLayout          = "20060102150405"
	MaxBodyBytes         = 1 << 20 // what Read accepts
)

// HeaderSignedNext is sent only while a notification secret rotation
// overlaps: X-Service-Signed is then signed with the previous secret and
// X-Service-Signed-Next with the new one.
const HeaderSignedNext = "X-Service-Signed-Next"

// Errors of Verify and Read. Compare with errors.Is.
var (
	ErrMissingHeader = errors.New("notification: missing X-Service-Signed or X-Service-Timed header")
	ErrBadSignature  = errors.New("notification: signature does not match")
	ErrStale         = errors.New("notification: X-Service-Timed is outside the accepted window")
)

// Sign returns the lowercase hex HMAC-SHA256 of body|timed|version keyed
// with secret: the value of X-Service-Signed.
func Sign(secret string, body []byte, timed, version string) string {
	return hexHMAC(secret, append(append([]byte{}, body...), "|"+timed+"|"+version...))
}

// hexHMAC is the lowercase hex HMAC-SHA256 of msg keyed with secret.
func hexHMAC(secret string, msg []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(msg)
	return hex.EncodeToString(m.Sum(nil))
}

// FormatTimed formats t as the value of X-Service-Timed.
func FormatTimed(t time.Time) string { return t.UTC().Format(TimedLayout) }

// ParseTimed reads an X-Service-Timed value.
func ParseTimed(v string) (time.Time, error) {
	t, err := time.ParseInLocation(TimedLayout, v, time.UTC)
	if err != nil || len(v) != len(TimedLayout) {
		return time.Time{}, fmt.Errorf("notification: X-Service-Timed %q is not YYYYMMDDhhmmss", v)
	}
	return t, nil
}

// VersionOf returns the version part of a User-Agent such as "Service/2.0";
// Version when the header does not have that form.
func VersionOf(userAgent string) string {
	if v, ok := strings.CutPrefix(userAgent, "Service/"); ok && v != "" {
		return v
	}
	return Version
}

// Verifier checks notifications for one application.
type Verifier struct {
	Secret string // the application's notification secret
	// PreviousSecret, when set, is accepted too: during a secret rotation's
	// overlap a receiver may hold either secret (see Verify).
	PreviousSecret string
	// MaxAge, when positive, rejects a notification whose X-Service-Timed is
	// further than MaxAge from Now (either way). Leave it zero against a
	// sandbox whose virtual clock has been moved forward.
	MaxAge time.Duration
	Now    func() time.Time // time.Now when nil
}

// Verify checks the signature of body with the headers it came with, in
// constant time, and the freshness of X-Service-Timed when MaxAge is set.
//
// During a secret rotation's overlap bankrail sends two signatures:
// X-Service-Signed with the previous secret and X-Service-Signed-Next with
// the new one. A notification is genuine when either signature matches
// Secret or PreviousSecret, so a receiver holding the old secret, the new
// one, or both, verifies it.
func (v Verifier) Verify(h http.Header, body []byte) error {
	signed, timed := h.Get(HeaderSigned), h.Get(HeaderTimed)
	if signed == "" || timed == "" {
		return ErrMissingHeader
	}
	version := VersionOf(h.Get("User-Agent"))
	ok := false
	secrets := []string{v.Secret}
	if v.PreviousSecret != "" {
		secrets = append(secrets, v.PreviousSecret)
	}
	for _, secret := range secrets {
		want := []byte(Sign(secret, body, timed, version))
		for _, got := range []string{signed, h.Get(HeaderSignedNext)} {
			if got != "" && hmac.Equal(want, []byte(strings.ToLower(got))) {
				ok = true
			}
		}
	}
	if !ok {
		return ErrBadSignature
	}
	if v.MaxAge > 0 {
		at, err := ParseTimed(timed)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrStale, err)
		}
		now := time.Now()
		if v.Now != nil {
			now = v.Now()
		}
		if d := now.Sub(at); d > v.MaxAge || d < -v.MaxAge {
			return ErrStale
		}
	}
	return nil
}

// Verify checks body against the headers with secret (no freshness check).
func Verify(secret string, h http.Header, body []byte) error {
	return Verifier{Secret: secret}.Verify(h, body)
}

// Read reads r's body (at most MaxBodyBytes), verifies it and decodes it.
// Nothing is decoded unless the signature holds.
func (v Verifier) Read(r *http.Request) (Notification, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return Notification{}, fmt.Errorf("notification: read body: %w", err)
	}
	if len(body) > MaxBodyBytes {
		return Notification{}, fmt.Errorf("notification: body larger than %d bytes", MaxBodyBytes)
	}
	if err := v.Verify(r.Header, body); err != nil {
		return Notification{}, err
	}
	return Parse(r.Header, body)
}
