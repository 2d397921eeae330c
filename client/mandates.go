package client

import (
	"context"
	"iter"

	"github.com/bankrail/bankrail/api"
)

// CreateMandate creates a PayTo or VRP mandate (sandbox, beta).
func (c *Client) CreateMandate(ctx context.Context, body api.MandateCreateRequest) (*api.Mandate, error) {
	return decode[api.Mandate](ctx, c, call{op: opCreateMandate, body: body})
}

// ListMandates reads one page of mandates, newest first.
func (c *Client) ListMandates(ctx context.Context, params *api.ListMandatesParams) (*Page[api.Mandate], error) {
	return list[api.Mandate](ctx, c, call{op: opListMandates, params: params})
}

// AllMandates iterates over every page of ListMandates.
func (c *Client) AllMandates(ctx context.Context, params *api.ListMandatesParams) iter.Seq2[api.Mandate, error] {
	return all(params, func(p *api.ListMandatesParams) **int64 { return &p.Page },
		func(p *api.ListMandatesParams) **string { return &p.Cursor },
		func(p *api.ListMandatesParams) (*Page[api.Mandate], error) { return c.ListMandates(ctx, p) })
}

// GetMandate reads a mandate.
func (c *Client) GetMandate(ctx context.Context, id string) (*api.Mandate, error) {
	return decode[api.Mandate](ctx, c, call{op: opGetMandate, path: []string{id}})
}

// SuspendMandate moves an ACTIVE mandate to SUSPENDED.
func (c *Client) SuspendMandate(ctx context.Context, id string) (*api.Mandate, error) {
	return decode[api.Mandate](ctx, c, call{op: opSuspendMandate, path: []string{id}})
}

// ResumeMandate moves a SUSPENDED mandate back to ACTIVE.
func (c *Client) ResumeMandate(ctx context.Context, id string) (*api.Mandate, error) {
	return decode[api.Mandate](ctx, c, call{op: opResumeMandate, path: []string{id}})
}

// CancelMandate cancels a mandate.
func (c *Client) CancelMandate(ctx context.Context, id string) (*api.Mandate, error) {
	return decode[api.Mandate](ctx, c, call{op: opCancelMandate, path: []string{id}})
}

// CreateAmendment asks the payer to amend a mandate's terms.
func (c *Client) CreateAmendment(ctx context.Context, mandateID string, body api.AmendmentRequest) (*api.Amendment, error) {
	return decode[api.Amendment](ctx, c, call{op: opCreateAmendment, path: []string{mandateID}, body: body})
}

// GetAmendment reads an amendment.
func (c *Client) GetAmendment(ctx context.Context, id string) (*api.Amendment, error) {
	return decode[api.Amendment](ctx, c, call{op: opGetAmendment, path: []string{id}})
}

// RecallAmendment recalls an amendment awaiting approval.
func (c *Client) RecallAmendment(ctx context.Context, id string) error {
	return none(ctx, c, call{op: opRecallAmendment, path: []string{id}})
}
