package client

import (
	"context"
	"net/http"

	"github.com/bankrail/bankrail/notification"
)

// The notification receiver's side, from the public package
// github.com/bankrail/bankrail/notification: the signature check
// (X-Service-Signed, an HMAC-SHA256 of body|X-Service-Timed|version keyed
// with the application's notification secret) and the typed bodies.
type (
	// Verifier checks the notifications of one application.
	Verifier = notification.Verifier
	// Notification is a verified, decoded notification.
	Notification = notification.Notification
)

// Errors of a notification that does not verify; compare with errors.Is.
var (
	ErrMissingSignature = notification.ErrMissingHeader
	ErrBadSignature     = notification.ErrBadSignature
	ErrStaleTimestamp   = notification.ErrStale
)

// VerifyNotification checks a notification's body against its headers with
// the application's notification secret.
func VerifyNotification(secret string, header http.Header, body []byte) error {
	return notification.Verify(secret, header, body)
}

// NotificationHandler is a notification receiver: it verifies each request
// with v, answers 400 to one that does not verify, and otherwise calls
// handle with the decoded notification, answering 204 when it returns nil
// and 500 (bankrail retries later) when it fails. Notifications can arrive
// more than once and out of order: handle should deduplicate on n.ID and
// order by status (see docs/notifications.md).
func NotificationHandler(v Verifier, handle func(ctx context.Context, n Notification) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "notifications are POSTed", http.StatusMethodNotAllowed)
			return
		}
		n, err := v.Read(r)
		if err != nil { // a bad signature, or a body that is not a notification
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := handle(r.Context(), n); err != nil {
			http.Error(w, "the notification could not be handled; send it again", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}
