package checkout

import (
	"net/http"
	"net/url"

	"github.com/bankrail/bankrail/internal/payment"
)

// The embedded checkout is the hosted checkout inside a merchant's page: the
// merchant's page loads /js/v1/checkout.js, which frames
// /checkout/{id}/embed with the token of POST /dropin and the page's
// origin. From there on the pages carry an embedded link token bound to
// that origin: only that origin may frame them, return URLs are not used,
// and the final page posts the outcome to that origin.

// embeddedOrigin is the origin a token's pages run embedded in, or "" when
// they are not embedded. The token is not checked here: pages only trust it
// once the payment service accepted it, and until then it only decides who
// may frame an error page.
func embeddedOrigin(token string) string {
	l, ok := payment.ParseLink(token)
	if !ok || !l.Embedded() {
		return ""
	}
	if c, ok := payment.CanonicalOrigin(l.Origin); !ok || c != l.Origin {
		return ""
	}
	return l.Origin
}

// allowFraming lets origin frame the answer, and lets the page run
// bankrail's own scripts (the final page's event).
func allowFraming(w http.ResponseWriter, origin string) {
	w.Header().Del("X-Frame-Options")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:; script-src 'self'; "+
		"base-uri 'none'; frame-ancestors "+origin)
}

// startEmbedded serves GET /checkout/{id}/embed?token=&origin=: the
// embedded checkout's entry. The token of POST /dropin becomes one bound
// to the merchant page's origin (refused when POST /dropin named another),
// and the payer continues on the checkout.
func (h *Handler) startEmbedded(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	if origin, ok := payment.CanonicalOrigin(q.Get("origin")); ok {
		allowFraming(w, origin) // so that an error shows in the merchant's frame
	}
	token, err := h.Payments.EmbedLink(r.Context(), r.PathValue("id"), q.Get("token"), q.Get("origin"))
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/checkout/"+r.PathValue("id")+"?"+url.Values{"token": {token}}.Encode(), http.StatusSeeOther)
	return nil
}

// serveStatic serves an embedded static file with a content type, cacheable
// for an hour.
func serveStatic(name, contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Header().Set("Content-Type", contentType)
		http.ServeFileFS(w, r, files, name)
	}
}
