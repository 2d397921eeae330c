// Package client is the Go SDK of bankrail: one typed method per operation
// of its OpenAPI document (the Global API, the legacy Payments API, the
// sandbox controls, the payer's pages and the operational endpoints), on the
// wire types of package github.com/bankrail/bankrail/api.
//
//	c, err := client.New("http://127.0.0.1:8080", client.WithCredentials(client.Credentials{
//		ClientID: "demo-client", ClientSecret: "demo-client-secret",
//		Username: "merchant@demo.test", Password: "demo-password",
//	}))
//	p, err := c.CreatePayment(ctx, api.PaymentCreateRequest{...}, nil)
//
// What every call does for you:
//
//   - Sign-in: WithCredentials signs in (POST /oauth), keeps the token,
//     refreshes it before it expires, and signs in again when the server
//     refuses it (401), once per call. However many calls run at once, one
//     sign-in is made.
//   - Idempotency: creations that take an Idempotency-Key (payments, legacy
//     payments, drop-in sessions, refunds, payouts) get one made up when
//     their parameters carry none, the same on every retry, so a call whose
//     answer was lost creates one thing.
//   - Retries after network errors, 429 (Retry-After) and 5xx, with
//     exponential backoff and jitter, capped, and never past the context's
//     deadline (RetryPolicy).
//   - Errors: an answer that is not a success is an *Error with the code,
//     message, field errors and trace id.
//   - Lists: ListX returns one page (Page); AllX iterates over every item of
//     every page (iter.Seq2).
//   - Headers the document requires with a single value are sent for you:
//     X-Service-Api-Version: 1, and X-Service-Initiation-Channel: hosted
//     unless the parameters choose api.
//
// Methods are named after the operationId with an upper-case first letter
// (createPayment is CreatePayment). Their arguments are the context, the
// path parameters in order, the request body, then the parameters struct
// of package api (nil for none) when the operation has optional ones.
//
// Receiving notifications: see Verifier and NotificationHandler, from the
// public package github.com/bankrail/bankrail/notification.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/api"
)

// timeNow is the token source's clock (tests replace it).
var timeNow = time.Now

// UserAgent is sent with every call.
const UserAgent = "bankrail-go-sdk/1"

// Client calls one bankrail instance. It is safe for concurrent use.
type Client struct {
	base   *url.URL
	http   *http.Client
	tokens TokenSource
	retry  RetryPolicy
}

// Option configures a Client.
type Option func(*Client)

// WithCredentials signs in with the password grant of POST /oauth and keeps
// the token fresh (see the package documentation).
func WithCredentials(creds Credentials) Option {
	return func(c *Client) {
		c.tokens = &tokens{creds: creds, grant: c.createToken, now: timeNow, margin: refreshMargin}
	}
}

// WithTokenSource takes the bearer tokens from ts. If ts has a method
// Invalidate(token string), a token the server refuses (401) is passed to it
// and the call is tried once more with a new token.
func WithTokenSource(ts TokenSource) Option { return func(c *Client) { c.tokens = ts } }

// WithHTTPClient sends the calls through hc (its transport, proxy, TLS and
// timeout). Redirects are never followed: the client copies hc and sets its
// CheckRedirect.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		cp := *hc
		c.http = &cp
	}
}

// WithRetry replaces DefaultRetryPolicy; zero fields keep their defaults.
func WithRetry(p RetryPolicy) Option { return func(c *Client) { c.retry = p } }

// New returns a client of the instance at baseURL ("http://127.0.0.1:8080").
func New(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("bankrail: base URL %q is not an http(s) URL", baseURL)
	}
	c := &Client{base: u, http: &http.Client{}, retry: DefaultRetryPolicy}
	for _, o := range opts {
		o(c)
	}
	c.retry = c.retry.withDefaults()
	c.http.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c, nil
}

// BaseURL is the address of the instance.
func (c *Client) BaseURL() string { return c.base.String() }

// Ptr returns a pointer to v, for the optional fields of package api's types.
func Ptr[T any](v T) *T { return &v }

// call is one operation to perform.
type call struct {
	op     *operation
	path   []string    // the path parameters, in the template's order
	params any         // a parameters struct of package api (query and header fields), or nil
	body   any         // marshalled as JSON (as a form for formBody operations); nil for none
	raw    []byte      // a body sent as is, with header
	header http.Header // extra headers
	accept string      // Accept; application/json when empty
	ok     func(status int) bool
	stream bool // keep the body of a successful answer open (answer.stream)
}

// answer is a successful exchange.
type answer struct {
	status int
	header http.Header
	body   []byte
	stream io.ReadCloser // when call.stream
}

// exchange performs k with retries, sign-in and error decoding.
func (c *Client) exchange(ctx context.Context, k call) (*answer, error) {
	o := k.op
	fail := func(err error) error { return fmt.Errorf("bankrail: %s: %w", o.id, err) }
	path, err := expand(o.path, k.path)
	if err != nil {
		return nil, fail(err)
	}
	query, header, err := encodeParams(k.params)
	if err != nil {
		return nil, fail(err)
	}
	for name, v := range k.header {
		header[name] = v
	}
	if o.flags&versioned != 0 && header.Get("X-Service-Api-Version") == "" {
		header.Set("X-Service-Api-Version", "1")
	}
	if o.flags&idempotent != 0 && header.Get("Idempotency-Key") == "" {
		header.Set("Idempotency-Key", uuid.NewString())
	}
	body, contentType, err := encodeBody(o, k)
	if err != nil {
		return nil, fail(err)
	}
	target := c.base.String() + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	accept := k.accept
	if accept == "" {
		accept = "application/json"
	}
	ok := k.ok
	if ok == nil {
		ok = func(s int) bool { return s >= 200 && s < 300 }
	}

	reauthorised := false
	for attempt := 1; ; attempt++ {
		var token string
		if o.flags&public == 0 && c.tokens != nil {
			if token, err = c.tokens.Token(ctx); err != nil {
				return nil, fail(fmt.Errorf("sign in: %w", err))
			}
		}
		req, err := http.NewRequestWithContext(ctx, o.method, target, bodyReader(body))
		if err != nil {
			return nil, fail(err)
		}
		for name, v := range header {
			req.Header[name] = v
		}
		if req.Header.Get("User-Agent") == "" { // a forwarded notification keeps its own
			req.Header.Set("User-Agent", UserAgent)
		}
		req.Header.Set("Accept", accept)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		a, err := c.send(req, ok, k.stream)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fail(ctx.Err())
			}
			if attempt < c.retry.MaxAttempts && retryableNetError(o, err) {
				if werr := sleep(ctx, c.retry.backoff(attempt)); werr != nil {
					return nil, fail(errors.Join(err, werr))
				}
				continue
			}
			return nil, fail(err)
		}
		if ok(a.status) {
			return a, nil
		}
		e := errorOf(o.id, a.status, a.header, a.body)
		if a.status == http.StatusUnauthorized && token != "" && !reauthorised {
			if inv, can := c.tokens.(invalidator); can {
				inv.Invalidate(token)
				reauthorised = true
				attempt-- // a refused token is not a failed try
				continue
			}
		}
		if attempt < c.retry.MaxAttempts && retryableStatus(o, e) && e.RetryAfter <= c.retry.MaxRetryAfter {
			wait := max(e.RetryAfter, c.retry.backoff(attempt))
			if werr := sleep(ctx, wait); werr != nil {
				return nil, errors.Join(e, werr)
			}
			continue
		}
		return nil, e
	}
}

// send performs one HTTP exchange. The body of a success is kept open when
// stream is set; every other body is read whole (a read failure is a
// network error).
func (c *Client) send(req *http.Request, ok func(int) bool, stream bool) (*answer, error) {
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	a := &answer{status: resp.StatusCode, header: resp.Header}
	if stream && ok(resp.StatusCode) {
		a.stream = resp.Body
		return a, nil
	}
	defer resp.Body.Close()
	if a.body, err = io.ReadAll(resp.Body); err != nil {
		return nil, fmt.Errorf("read the answer: %w", err)
	}
	return a, nil
}

// encodeBody marshals the call's body once (every attempt resends it).
func encodeBody(o *operation, k call) ([]byte, string, error) {
	switch {
	case k.raw != nil:
		if o.flags&ndjsonBody != 0 {
			return k.raw, "application/x-ndjson", nil
		}
		return k.raw, "application/json", nil
	case k.body == nil:
		return nil, "", nil
	case o.flags&formBody != 0:
		form, err := encodeForm(k.body)
		if err != nil {
			return nil, "", err
		}
		return []byte(form.Encode()), "application/x-www-form-urlencoded", nil
	}
	b, err := json.Marshal(k.body)
	if err != nil {
		return nil, "", fmt.Errorf("encode the request body: %w", err)
	}
	return b, "application/json", nil
}

func bodyReader(b []byte) io.Reader {
	if b == nil {
		return nil
	}
	return bytes.NewReader(b)
}

// createToken is CreateToken, with or without retries (a refresh token must
// not be resent blindly).
func (c *Client) createToken(ctx context.Context, req api.TokenRequest, retry bool) (*api.TokenResponse, error) {
	cl := c
	if !retry {
		cp := *c
		cp.retry.MaxAttempts = 1
		cl = &cp
	}
	return decode[api.TokenResponse](ctx, cl, call{op: opCreateToken, body: req})
}

// decode performs k and decodes its JSON answer into R.
func decode[R any](ctx context.Context, c *Client, k call) (*R, error) {
	a, err := c.exchange(ctx, k)
	if err != nil {
		return nil, err
	}
	r := new(R)
	if err := json.Unmarshal(a.body, r); err != nil {
		return nil, fmt.Errorf("bankrail: %s: decode the answer (%d): %w", k.op.id, a.status, err)
	}
	return r, nil
}

// none performs k, whose answer has no body worth reading.
func none(ctx context.Context, c *Client, k call) error {
	_, err := c.exchange(ctx, k)
	return err
}

// text performs k and returns its answer as text.
func text(ctx context.Context, c *Client, k call) (string, error) {
	if k.accept == "" {
		k.accept = "*/*"
	}
	a, err := c.exchange(ctx, k)
	if err != nil {
		return "", err
	}
	return string(a.body), nil
}
