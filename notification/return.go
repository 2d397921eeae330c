package notification

import (
	"crypto/hmac"
	"errors"
	"net/url"
	"time"
)

// Query parameters that bankrail adds to a return URL when it sends the
// payer back to the merchant after the bank. They tell the merchant's page
// what happened, signed with the application's notification secret so that
// a payer cannot fake them. Notifications stay authoritative: a return page
// shows the outcome, the notification settles the order.
const (
	ReturnPaymentID      = "paymentId"
	ReturnStatus         = "paymentStatus"  // COMPLETED, FAILED or PENDING, as in gateway notifications
	ReturnDetailedStatus = "detailedStatus" // the payment's status, e.g. CANCELLED_BY_USER
	ReturnTimed          = "timed"          // 14 digits, YYYYMMDDhhmmss, UTC
	ReturnSignature      = "signature"      // lowercase hex HMAC-SHA256
)

// ErrBadReturn is returned by VerifyReturn for a missing or wrong signature.
var ErrBadReturn = errors.New("notification: return parameters are missing or not signed by bankrail")

// Return is the outcome carried by a return URL.
type Return struct {
	PaymentID      string
	Status         string
	DetailedStatus string
	Timed          time.Time
}

// returnMessage is what the signature covers.
func returnMessage(paymentID, status, detailed, timed string) []byte {
	return []byte(paymentID + "|" + status + "|" + detailed + "|" + timed)
}

// SignReturn returns the query parameters describing r, signed with secret:
// signature = hex(HMAC-SHA256(secret, paymentId|paymentStatus|detailedStatus|timed)).
func SignReturn(secret string, r Return) url.Values {
	timed := FormatTimed(r.Timed)
	v := url.Values{}
	v.Set(ReturnPaymentID, r.PaymentID)
	v.Set(ReturnStatus, r.Status)
	v.Set(ReturnDetailedStatus, r.DetailedStatus)
	v.Set(ReturnTimed, timed)
	v.Set(ReturnSignature, hexHMAC(secret, returnMessage(r.PaymentID, r.Status, r.DetailedStatus, timed)))
	return v
}

// VerifyReturn checks the signed parameters of a return URL's query and
// decodes them. With maxAge > 0 it also refuses a timed value older than
// maxAge (or further than maxAge ahead) of now.
func VerifyReturn(secret string, q url.Values, maxAge time.Duration, now time.Time) (Return, error) {
	id, st, det, timed, sig := q.Get(ReturnPaymentID), q.Get(ReturnStatus), q.Get(ReturnDetailedStatus), q.Get(ReturnTimed), q.Get(ReturnSignature)
	if id == "" || st == "" || timed == "" || sig == "" {
		return Return{}, ErrBadReturn
	}
	want := hexHMAC(secret, returnMessage(id, st, det, timed))
	if !hmac.Equal([]byte(want), []byte(sig)) {
		return Return{}, ErrBadReturn
	}
	t, err := ParseTimed(timed)
	if err != nil {
		return Return{}, err
	}
	if maxAge > 0 && (now.Sub(t) > maxAge || t.Sub(now) > maxAge) {
		return Return{}, ErrStale
	}
	return Return{PaymentID: id, Status: st, DetailedStatus: det, Timed: t}, nil
}
