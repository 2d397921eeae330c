package client

import (
	"context"
	"net/http"

	"github.com/bankrail/bankrail/api"
)

// Redirect is an answer that sends the caller on: its status (302, 303)
// and Location.
type Redirect struct {
	Status   int
	Location string
}

// WebPage is one of the payer's HTML pages: a page (200, HTML set) or a
// redirect on (303, Location set). Error pages are *Error.
type WebPage struct {
	Status   int
	Location string
	HTML     string
}

func isRedirect(s int) bool { return s >= 300 && s < 400 }

// redirect performs k, whose success is a redirect.
func redirect(ctx context.Context, c *Client, k call) (*Redirect, error) {
	k.ok, k.accept = isRedirect, "*/*"
	a, err := c.exchange(ctx, k)
	if err != nil {
		return nil, err
	}
	return &Redirect{Status: a.status, Location: a.header.Get("Location")}, nil
}

// webPage performs k, whose success is a page or a redirect.
func webPage(ctx context.Context, c *Client, k call) (*WebPage, error) {
	k.ok = func(s int) bool { return s == http.StatusOK || isRedirect(s) }
	k.accept = "text/html"
	a, err := c.exchange(ctx, k)
	if err != nil {
		return nil, err
	}
	p := &WebPage{Status: a.status, Location: a.header.Get("Location")}
	if a.status == http.StatusOK {
		p.HTML = string(a.body)
	}
	return p, nil
}

// bytesOf performs k and returns its answer's body.
func bytesOf(ctx context.Context, c *Client, k call) ([]byte, error) {
	a, err := c.exchange(ctx, k)
	if err != nil {
		return nil, err
	}
	return a.body, nil
}

// ShowCheckoutPage reads the hosted checkout of a payment (the bank picker,
// or the confirmation when the bank is fixed), as the payer's browser
// would; params.Token is the token of the payer's link.
func (c *Client) ShowCheckoutPage(ctx context.Context, paymentID string, params api.ShowCheckoutPageParams) (*WebPage, error) {
	return webPage(ctx, c, call{op: opShowCheckoutPage, path: []string{paymentID}, params: params})
}

// StartEmbeddedCheckout exchanges a POST /dropin token for the payer's
// checkout link (a redirect).
func (c *Client) StartEmbeddedCheckout(ctx context.Context, paymentID string, params api.StartEmbeddedCheckoutParams) (*Redirect, error) {
	return redirect(ctx, c, call{op: opStartEmbeddedCheckout, path: []string{paymentID}, params: params})
}

// ShowCheckoutConfirmation reads the page that confirms the chosen bank.
func (c *Client) ShowCheckoutConfirmation(ctx context.Context, paymentID string, params api.ShowCheckoutConfirmationParams) (*WebPage, error) {
	return webPage(ctx, c, call{op: opShowCheckoutConfirmation, path: []string{paymentID}, params: params})
}

// GoToBank posts the confirmation form: the payment moves to BANK_REDIRECT
// and the answer redirects to the bank's authorisation page.
func (c *Client) GoToBank(ctx context.Context, paymentID string, body api.GoToBankFormdataBody) (*Redirect, error) {
	return redirect(ctx, c, call{op: opGoToBank, path: []string{paymentID}, body: body})
}

// ShowCheckoutOutcome reads the outcome page of a payment.
func (c *Client) ShowCheckoutOutcome(ctx context.Context, paymentID string, params api.ShowCheckoutOutcomeParams) (*WebPage, error) {
	return webPage(ctx, c, call{op: opShowCheckoutOutcome, path: []string{paymentID}, params: params})
}

// GetCheckoutStyles reads the style sheet of the payer's pages.
func (c *Client) GetCheckoutStyles(ctx context.Context) (string, error) {
	return text(ctx, c, call{op: opGetCheckoutStyles, accept: "text/css"})
}

// GetCheckoutFrameScript reads the script of the embedded checkout's frame.
func (c *Client) GetCheckoutFrameScript(ctx context.Context) (string, error) {
	return text(ctx, c, call{op: opGetCheckoutFrameScript, accept: "text/javascript"})
}

// ShowMockBank reads a mock bank's authorisation page (sandbox).
func (c *Client) ShowMockBank(ctx context.Context, bankID, paymentID string, params api.ShowMockBankParams) (*WebPage, error) {
	return webPage(ctx, c, call{op: opShowMockBank, path: []string{bankID, paymentID}, params: params})
}

// AnswerAtMockBank posts the payer's answer at the mock bank (sandbox); the
// answer redirects to the merchant's return URL or the outcome page.
func (c *Client) AnswerAtMockBank(ctx context.Context, bankID, paymentID string, body api.AnswerAtMockBankFormdataBody) (*Redirect, error) {
	return redirect(ctx, c, call{op: opAnswerAtMockBank, path: []string{bankID, paymentID}, body: body})
}
