package dispatch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/netguard"
	"github.com/bankrail/bankrail/internal/notify"
)

// responseKept is how much of a receiver's answer the attempt log keeps.
const responseKept = 1024

// newClient is the HTTP client of deliveries: no proxy (the guard must see
// the real address), no redirects (a 3xx is a failure), keep-alive
// connections for throughput.
func newClient(guard bool, conns int) *http.Client {
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         netguard.Dialer(guard).DialContext,
		MaxIdleConns:        conns * 2,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 5 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   true,
	}
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
}

// attempt POSTs one claimed notification and describes what happened. It
// reports aborted when the dispatcher stopped before the receiver answered.
func (d *Dispatcher) attempt(ctx context.Context, c notify.Claim) (notify.Attempt, bool) {
	target := c.Target()
	start := d.now(ctx, c.CustomerID)
	previous := ""
	if c.Rotation.Active(start) {
		previous = c.Rotation.PreviousSecret
	}
	req := notify.BuildRotatingRequest(c.Notification, target, c.Secret, previous, start)
	a := notify.Attempt{ID: ids.New(), NotificationID: c.ID, Number: c.Attempts, At: start,
		URL: target, RequestHeaders: req.Headers, RequestBody: req.Body}
	if target == "" {
		a.Error, a.NoURL = notify.NoURLError, true
		return a, false
	}
	ctx, cancel := context.WithTimeout(ctx, d.opts.Timeout)
	defer cancel()
	began := time.Now() // basetime: latency is a duration on the monotonic clock, not a time rule
	status, body, err := d.post(ctx, req)
	a.Latency = time.Since(began) // basetime: the latency above
	a.ResponseStatus, a.ResponseBody = status, body
	switch {
	case err != nil && errors.Is(ctx.Err(), context.Canceled): // Stop, not the receiver
		return a, true
	case err != nil:
		a.Error = describe(err, d.opts.Timeout)
	case status >= 300 && status < 400:
		a.Error = fmt.Sprintf("HTTP %d: redirects are not followed; answer 2xx at the notification URL", status)
	case status < 200 || status >= 300:
		a.Error = fmt.Sprintf("HTTP %d", status)
	default:
		a.Success = true
	}
	d.metrics.attempted(a)
	return a, false
}

// post sends req and returns the status and the start of the answer.
func (d *Dispatcher) post(ctx context.Context, req notify.Request) (int, string, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, req.URL, bytes.NewReader(req.Body))
	if err != nil {
		return 0, "", err
	}
	for k, v := range req.Headers {
		hr.Header.Set(k, v)
	}
	resp, err := d.client.Do(hr)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	kept, _ := io.ReadAll(io.LimitReader(resp.Body, responseKept))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // let the connection be reused
	return resp.StatusCode, printable(kept), nil
}

// describe turns a transport error into a line for the attempt log without
// the URL (it may carry credentials).
func describe(err error, timeout time.Duration) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("no answer within %s", timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// printable makes a response body safe to store as text.
func printable(b []byte) string {
	return strings.ReplaceAll(strings.ToValidUTF8(string(b), "\uFFFD"), "\x00", "")
}
