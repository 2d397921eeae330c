package client

import (
	"context"
	"iter"

	"github.com/bankrail/bankrail/api"
)

// CreatePayment creates a payment (POST /payments). params may be nil: the
// initiation channel is then hosted, and an Idempotency-Key is made up
// unless params carries one. In the sandbox, params.XServiceTestingScenario
// plays an outcome right after creation.
func (c *Client) CreatePayment(ctx context.Context, body api.PaymentCreateRequest, params *api.CreatePaymentParams) (*api.Payment, error) {
	var p api.CreatePaymentParams
	if params != nil {
		p = *params
	}
	if p.XServiceInitiationChannel == "" {
		p.XServiceInitiationChannel = "hosted"
	}
	return decode[api.Payment](ctx, c, call{op: opCreatePayment, body: body, params: &p})
}

// ListPayments reads one page of payments, newest first (GET /payments).
func (c *Client) ListPayments(ctx context.Context, params *api.ListPaymentsParams) (*Page[api.PaymentDetails], error) {
	return list[api.PaymentDetails](ctx, c, call{op: opListPayments, params: params})
}

// AllPayments iterates over the payments of every page of ListPayments.
func (c *Client) AllPayments(ctx context.Context, params *api.ListPaymentsParams) iter.Seq2[api.PaymentDetails, error] {
	return all(params, func(p *api.ListPaymentsParams) **int64 { return &p.Page },
		func(p *api.ListPaymentsParams) **string { return &p.Cursor },
		func(p *api.ListPaymentsParams) (*Page[api.PaymentDetails], error) { return c.ListPayments(ctx, p) })
}

// GetPayment reads a payment's details record (GET /payments/{id}).
func (c *Client) GetPayment(ctx context.Context, id string) (*api.PaymentDetails, error) {
	return decode[api.PaymentDetails](ctx, c, call{op: opGetPayment, path: []string{id}})
}

// GetNameMatchScore scores the payer's name against the account holder's
// (GET /payments/{id}/name-match-score).
func (c *Client) GetNameMatchScore(ctx context.Context, id string, params *api.GetNameMatchScoreParams) (*api.NameMatchScore, error) {
	return decode[api.NameMatchScore](ctx, c, call{op: opGetNameMatchScore, path: []string{id}, params: params})
}

// FollowPaymentLink resolves the payer's short link /c/{code} (the last
// part of paymentInitiationFlow.details.redirect.url) to the checkout
// address it redirects to.
func (c *Client) FollowPaymentLink(ctx context.Context, code string) (*Redirect, error) {
	return redirect(ctx, c, call{op: opFollowPaymentLink, path: []string{code}})
}

// ListBanks lists the institutions a payer can pay from (GET /banks).
func (c *Client) ListBanks(ctx context.Context, params *api.ListBanksParams) ([]api.Bank, error) {
	banks, err := decode[[]api.Bank](ctx, c, call{op: opListBanks, params: params})
	if err != nil {
		return nil, err
	}
	return *banks, nil
}

// GetBank reads one institution (GET /banks/{id}).
func (c *Client) GetBank(ctx context.Context, id string) (*api.Bank, error) {
	return decode[api.Bank](ctx, c, call{op: opGetBank, path: []string{id}})
}

// GetBankLogo reads a bank's logo, an SVG image (GET /banks/{id}/logo.svg).
func (c *Client) GetBankLogo(ctx context.Context, id string) ([]byte, error) {
	return bytesOf(ctx, c, call{op: opGetBankLogo, path: []string{id}, accept: "image/svg+xml"})
}

// GetBankIcon reads a bank's icon, an SVG image (GET /banks/{id}/icon.svg).
func (c *Client) GetBankIcon(ctx context.Context, id string) ([]byte, error) {
	return bytesOf(ctx, c, call{op: opGetBankIcon, path: []string{id}, accept: "image/svg+xml"})
}

// RequestRefund refunds a payment received into a Connect account (POST
// /payments/{id}/request-refund); an Idempotency-Key is made up unless
// params carries one.
func (c *Client) RequestRefund(ctx context.Context, paymentID string, body api.RefundRequest, params *api.RequestRefundParams) (*api.Refund, error) {
	return decode[api.Refund](ctx, c, call{op: opRequestRefund, path: []string{paymentID}, body: body, params: params})
}

// ListPaymentRefunds lists a payment's refunds, oldest first.
func (c *Client) ListPaymentRefunds(ctx context.Context, paymentID string) ([]api.Refund, error) {
	refunds, err := decode[[]api.Refund](ctx, c, call{op: opListPaymentRefunds, path: []string{paymentID}})
	if err != nil {
		return nil, err
	}
	return *refunds, nil
}

// GetRefund reads a refund (GET /refunds/{id}).
func (c *Client) GetRefund(ctx context.Context, id string) (*api.Refund, error) {
	return decode[api.Refund](ctx, c, call{op: opGetRefund, path: []string{id}})
}
