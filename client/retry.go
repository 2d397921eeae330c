package client

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"time"

	"github.com/bankrail/bankrail/api"
)

// RetryPolicy says how a call is tried again after a network error, 429
// Too Many Requests or a 5xx answer. Only calls that may be sent twice are
// retried after a failure whose outcome is unknown: reads, creations that
// carry an Idempotency-Key (the SDK makes one up) and the few POSTs that
// are harmless to repeat. Any call is retried when the server refused it
// without doing anything (429, a connection that was never made).
type RetryPolicy struct {
	// MaxAttempts is the number of tries in all, the first included; 1 turns
	// retries off. Default 4.
	MaxAttempts int
	// BaseDelay is the first backoff; each retry doubles it, up to MaxDelay,
	// and waits a random time between zero and that (full jitter).
	// Defaults 200ms and 5s.
	BaseDelay, MaxDelay time.Duration
	// MaxRetryAfter is the longest Retry-After the client waits for; a longer
	// one ends the call with the *Error (its RetryAfter says how long).
	// Default 30s.
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy is the policy of a client made without WithRetry.
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 4, BaseDelay: 200 * time.Millisecond, MaxDelay: 5 * time.Second, MaxRetryAfter: 30 * time.Second}

// withDefaults fills the zero fields of p from DefaultRetryPolicy.
func (p RetryPolicy) withDefaults() RetryPolicy {
	d := DefaultRetryPolicy
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = d.MaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = d.BaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = d.MaxDelay
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = d.MaxRetryAfter
	}
	return p
}

// backoff is the wait before retry number n (1 for the first retry): a
// random duration in [0, min(MaxDelay, BaseDelay*2^(n-1))].
func (p RetryPolicy) backoff(n int) time.Duration {
	ceiling := p.BaseDelay
	for i := 1; i < n && ceiling < p.MaxDelay; i++ {
		ceiling *= 2
	}
	ceiling = min(ceiling, p.MaxDelay)
	return rand.N(ceiling + 1)
}

// sleep waits d unless ctx ends first, or would end before d has passed
// (then it returns at once: waiting could not help).
func sleep(ctx context.Context, d time.Duration) error {
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
		return context.DeadlineExceeded
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// retryableStatus reports whether an error answer may be retried for o,
// and how long to wait at least.
func retryableStatus(o *operation, e *Error) bool {
	switch {
	case e.StatusCode == http.StatusTooManyRequests:
		return true // refused before anything was done
	case e.StatusCode == http.StatusConflict && e.Code == api.ErrorCodeIDEMPOTENCYCONFLICT && e.RetryAfter > 0:
		return true // the first request with this key is still running
	case e.StatusCode == http.StatusInternalServerError, e.StatusCode == http.StatusBadGateway,
		e.StatusCode == http.StatusServiceUnavailable, e.StatusCode == http.StatusGatewayTimeout:
		return o.safe()
	}
	return false
}

// retryableNetError reports whether a transport error may be retried for o:
// always when the connection was never made, else when o is safe to repeat.
func retryableNetError(o *operation, err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	return o.safe()
}
