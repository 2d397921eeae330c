package payment

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
)

// A link token is an expiring capability for the payer's pages of one
// payment: the legacy API's checkoutUrl and the embedded checkout carry one
// instead of the payment's permanent checkout token. It is derived from
// that checkout token (an HMAC keyed with it), so it is valid for that
// payment only and every instance can check it without storing anything.
//
// Form: base64url(purpose|expiry|origin) "." base64url(mac).

// LinkPurpose says what a link token opens.
type LinkPurpose string

// Link purposes.
const (
	LinkCheckout LinkPurpose = "checkout" // the hosted checkout (legacy checkoutUrl)
	LinkEmbedded LinkPurpose = "embedded" // the embedded checkout (POST /dropin)
)

// LinkTTL is how long a link token opens the payer's pages: the payer's
// part ends after AbandonAfter, and the final page stays readable a while.
const LinkTTL = time.Hour

// macLength is how many bytes of the HMAC a link token keeps (128 bits).
const macLength = 16

// Link is what a link token grants.
type Link struct {
	Purpose LinkPurpose
	Expires time.Time
	// Origin, on an embedded link, is the only site that may frame the
	// checkout and receive its events; empty until the page is mounted.
	Origin string
}

// Embedded reports whether the pages run inside a merchant's page.
func (l Link) Embedded() bool { return l.Purpose == LinkEmbedded && l.Origin != "" }

// NewLink is a link to p of purpose for the given origin, made as p is
// created: it expires LinkTTL after p's last change, on the clock of p's
// tenant (the sandbox clock of its top-level customer in the sandbox).
func (s *Service) NewLink(p Payment, purpose LinkPurpose, origin string) Link {
	return Link{Purpose: purpose, Expires: p.UpdatedAt.Add(LinkTTL).Truncate(time.Second), Origin: origin}
}

// LinkToken encodes l as a token for payment p.
func LinkToken(p Payment, l Link) string {
	payload := base64.RawURLEncoding.EncodeToString([]byte(string(l.Purpose) + "|" + strconv.FormatInt(l.Expires.Unix(), 10) + "|" + l.Origin))
	return payload + "." + base64.RawURLEncoding.EncodeToString(linkMAC(p, payload))
}

// linkMAC authenticates a link's payload for payment p.
func linkMAC(p Payment, payload string) []byte {
	m := hmac.New(sha256.New, []byte(p.CheckoutToken))
	m.Write([]byte(p.ID + "|" + payload))
	return m.Sum(nil)[:macLength]
}

// ParseLink reads what a link token claims, without checking it: only
// tokens that ForPayer accepted may be trusted.
func ParseLink(token string) (Link, bool) {
	payload, _, ok := strings.Cut(token, ".")
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if !ok || err != nil {
		return Link{}, false
	}
	parts := strings.SplitN(string(raw), "|", 3)
	if len(parts) != 3 {
		return Link{}, false
	}
	exp, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil {
		return Link{}, false
	}
	return Link{Purpose: LinkPurpose(parts[0]), Expires: time.Unix(exp, 0).UTC(), Origin: parts[2]}, true
}

// checkLink reports whether token is a valid link token of p at now:
// RESOURCE_NOT_FOUND when it is not one, or has expired.
func checkLink(p Payment, token string, now time.Time) (Link, error) {
	payload, mac, _ := strings.Cut(token, ".")
	got, err := base64.RawURLEncoding.DecodeString(mac)
	l, ok := ParseLink(token)
	if err != nil || !ok || !hmac.Equal(got, linkMAC(p, payload)) {
		return Link{}, errs.NotFoundf("This payment link is not valid.")
	}
	if !now.Before(l.Expires) {
		return Link{}, errs.NotFoundf("This payment link has expired; ask the merchant for a new one.")
	}
	return l, nil
}

// EmbedLink is the token the embedded checkout continues with once it is
// mounted in the page of origin: token must be an embedded link of payment
// id; when it was bound to an origin at creation, origin must be that one.
// The new token expires when token does.
func (s *Service) EmbedLink(ctx context.Context, id, token, origin string) (string, error) {
	p, err := s.ForPayer(ctx, id, token)
	if err != nil {
		return "", err
	}
	l, ok := ParseLink(token)
	if !ok || l.Purpose != LinkEmbedded {
		return "", errs.NotFoundf("This link does not open an embedded checkout.")
	}
	canon, ok := CanonicalOrigin(origin)
	if !ok {
		return "", errs.E(errs.BadRequest, "The page that embeds the checkout has no valid origin.")
	}
	if l.Origin != "" && l.Origin != canon {
		return "", errs.E(errs.AccessDenied, "This checkout may only be embedded in pages of %s.", l.Origin)
	}
	l.Origin = canon
	return LinkToken(p, l), nil
}

// CanonicalOrigin returns s as a web origin (scheme://host[:port], lower
// case, http or https, nothing else), or false.
func CanonicalOrigin(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(s, " \t\r\n|") {
		return "", false
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), true
}
