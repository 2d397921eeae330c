package xs2a

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
)

// Client speaks to one bank's NextGenPSD2 interface.
type Client struct {
	// BaseURL is the bank's address up to (not including) /v1, e.g.
	// https://api.bank.example/psd2.
	BaseURL string
	// HTTP carries the requests: its transport holds the client
	// certificate (QWAC) and the CA pool of the bank (directory.go).
	HTTP *http.Client
	// Timeout bounds one request; DefaultTimeout when zero.
	Timeout time.Duration
}

// DefaultTimeout bounds one request to a bank.
const DefaultTimeout = 10 * time.Second

// maxBody bounds what is read of a bank's answer.
const maxBody = 1 << 20

// Headers are the request headers of a payment initiation.
type Headers struct {
	RequestID         string // X-Request-ID: the same for every try of one initiation
	PSUIPAddress      string // the payer's, from the payment's device; bankrail's own address without one
	RedirectURI       string // TPP-Redirect-URI
	NokRedirectURI    string // TPP-Nok-Redirect-URI
	Scenario          string // X-Service-Testing-Scenario (the sandbox's mock ASPSP only)
	RedirectPreferred bool   // TPP-Redirect-Preferred
}

// Error is a failed exchange with a bank: the HTTP status (0 when none
// came) and what the bank said.
type Error struct {
	Op     string
	Status int
	Reason string
	// Retry: another try may succeed (a timeout, a 5xx, 408, 429).
	Retry bool
	err   error
}

func (e *Error) Error() string {
	s := e.Op
	if e.Status != 0 {
		s += fmt.Sprintf(": HTTP %d", e.Status)
	}
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	if e.err != nil {
		s += ": " + e.err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.err }

// Initiate sends POST /v1/payments/{product}.
func (c Client) Initiate(ctx context.Context, product string, h Headers, body PaymentInitiation) (InitiationResponse, error) {
	op := "initiate a payment at " + c.BaseURL
	b, err := json.Marshal(body)
	if err != nil {
		return InitiationResponse{}, fmt.Errorf("%s: %w", op, err)
	}
	hd := http.Header{}
	hd.Set("Content-Type", "application/json")
	hd.Set("X-Request-ID", h.RequestID)
	hd.Set("PSU-IP-Address", h.PSUIPAddress)
	if h.RedirectURI != "" {
		hd.Set("TPP-Redirect-URI", h.RedirectURI)
	}
	if h.NokRedirectURI != "" {
		hd.Set("TPP-Nok-Redirect-URI", h.NokRedirectURI)
	}
	hd.Set("TPP-Redirect-Preferred", fmt.Sprint(h.RedirectPreferred))
	if h.Scenario != "" {
		hd.Set("X-Service-Testing-Scenario", h.Scenario)
	}
	var out InitiationResponse
	if err := c.do(ctx, op, http.MethodPost, "/v1/payments/"+url.PathEscape(product), hd, b, http.StatusCreated, &out); err != nil {
		return InitiationResponse{}, err
	}
	if PhaseOf(out.TransactionStatus) == Rejected {
		return out, nil
	}
	if out.PaymentID == "" || approachOf(out) == "" {
		return InitiationResponse{}, &Error{Op: op, Status: http.StatusCreated,
			Reason: "the answer has no paymentId, or neither _links.scaRedirect (redirect SCA) nor _links.scaStatus (decoupled SCA)"}
	}
	return out, nil
}

// Status sends GET /v1/payments/{product}/{paymentId}/status.
func (c Client) Status(ctx context.Context, product, paymentID, requestID string) (StatusResponse, error) {
	op := "read the status of payment " + paymentID + " at " + c.BaseURL
	hd := http.Header{}
	hd.Set("X-Request-ID", requestID)
	hd.Set("Accept", "application/json")
	var out StatusResponse
	path := "/v1/payments/" + url.PathEscape(product) + "/" + url.PathEscape(paymentID) + "/status"
	if err := c.do(ctx, op, http.MethodGet, path, hd, nil, http.StatusOK, &out); err != nil {
		return StatusResponse{}, err
	}
	return out, nil
}

// Payment sends GET /v1/payments/{product}/{paymentId}: the initiation as
// the bank has it, with the debtor once the payer authorised it.
func (c Client) Payment(ctx context.Context, product, paymentID, requestID string) (PaymentWithStatus, error) {
	op := "read payment " + paymentID + " at " + c.BaseURL
	hd := http.Header{}
	hd.Set("X-Request-ID", requestID)
	hd.Set("Accept", "application/json")
	var out PaymentWithStatus
	path := "/v1/payments/" + url.PathEscape(product) + "/" + url.PathEscape(paymentID)
	if err := c.do(ctx, op, http.MethodGet, path, hd, nil, http.StatusOK, &out); err != nil {
		return PaymentWithStatus{}, err
	}
	return out, nil
}

// do sends one request and decodes a want answer into out; anything else
// is an *Error.
func (c Client) do(ctx context.Context, op, method, path string, hd http.Header, body []byte, want int, out any) error {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(c.BaseURL, "/")+path, bytes.NewReader(body))
	if err != nil {
		return &Error{Op: op, err: err}
	}
	if body == nil {
		req.Body, req.GetBody, req.ContentLength = http.NoBody, nil, 0
	}
	req.Header = hd
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return &Error{Op: op, Retry: true, err: err}
	}
	defer func() { _ = resp.Body.Close() }()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return &Error{Op: op, Status: resp.StatusCode, Retry: true, err: err}
	}
	if resp.StatusCode != want {
		var e ErrorResponse
		reason := ""
		if json.Unmarshal(raw, &e) == nil {
			reason = Reason(e.TPPMessages)
		}
		s := resp.StatusCode
		return &Error{Op: op, Status: s, Reason: reason, Retry: s >= 500 || s == http.StatusRequestTimeout || s == http.StatusTooManyRequests}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return &Error{Op: op, Status: resp.StatusCode, Reason: "the answer is not the JSON the standard describes", Retry: true, err: err}
	}
	return nil
}

// Retryable reports whether err is a failed exchange worth another try.
func Retryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Retry
}
