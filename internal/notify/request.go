package notify

import (
	"time"

	"github.com/bankrail/bankrail/notification"
)

// Request is exactly what goes on the wire for one attempt.
type Request struct {
	URL     string
	Headers map[string]string
	Body    []byte
}

// BuildRequest signs n for one attempt at now with the application's
// notification secret. The signed bytes are the sent bytes.
func BuildRequest(n Notification, url, secret string, now time.Time) Request {
	return BuildRotatingRequest(n, url, secret, "", now)
}

// BuildRotatingRequest is BuildRequest during a secret rotation's overlap:
// X-Service-Signed is signed with the previous secret (receivers not yet
// given the new one keep verifying) and X-Service-Signed-Next with the new
// one. With no previous secret it is BuildRequest.
func BuildRotatingRequest(n Notification, url, secret, previous string, now time.Time) Request {
	timed := notification.FormatTimed(now)
	h := map[string]string{
		"Content-Type":                    "application/json",
		"User-Agent":                      notification.UserAgent,
		notification.HeaderTimed:          timed,
		notification.HeaderSigned:         notification.Sign(secret, n.Body, timed, notification.Version),
		notification.HeaderNotificationID: n.ID,
	}
	if n.Type != "" {
		h[notification.HeaderType] = n.Type
	}
	if previous != "" {
		h[notification.HeaderSigned] = notification.Sign(previous, n.Body, timed, notification.Version)
		h[notification.HeaderSignedNext] = notification.Sign(secret, n.Body, timed, notification.Version)
	}
	return Request{URL: url, Headers: h, Body: n.Body}
}
