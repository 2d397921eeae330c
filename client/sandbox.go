package client

import (
	"context"
	"io"
	"iter"
	"net/http"
	"time"

	"github.com/bankrail/bankrail/api"
)

// GetSandboxClock reads the virtual clock of the caller's tenant.
func (c *Client) GetSandboxClock(ctx context.Context) (*api.SandboxClock, error) {
	return decode[api.SandboxClock](ctx, c, call{op: opGetSandboxClock})
}

// AdvanceSandboxClock moves the tenant's virtual clock forward (at most 400
// days per call). It is not retried after an unknown outcome: the clock
// would move twice.
func (c *Client) AdvanceSandboxClock(ctx context.Context, body api.SandboxClockAdvance) (*api.SandboxClock, error) {
	return decode[api.SandboxClock](ctx, c, call{op: opAdvanceSandboxClock, body: body})
}

// AdvanceSandboxClockBy is AdvanceSandboxClock by d, in whole seconds.
func (c *Client) AdvanceSandboxClockBy(ctx context.Context, d time.Duration) (*api.SandboxClock, error) {
	return c.AdvanceSandboxClock(ctx, api.SandboxClockAdvance{Seconds: Ptr(int64(d / time.Second))})
}

// ResetSandboxClock brings the tenant's clock back to the wall clock.
// Tokens issued while it was ahead are refused afterwards; a client made
// WithCredentials signs in again by itself.
func (c *Client) ResetSandboxClock(ctx context.Context) (*api.SandboxClock, error) {
	return decode[api.SandboxClock](ctx, c, call{op: opResetSandboxClock})
}

// ListSandboxInbox reads one page of the notifications the built-in
// sandbox inbox received, newest first.
func (c *Client) ListSandboxInbox(ctx context.Context, params *api.ListSandboxInboxParams) (*Page[api.SandboxInboxEntry], error) {
	return list[api.SandboxInboxEntry](ctx, c, call{op: opListSandboxInbox, params: params})
}

// AllSandboxInbox iterates over every page of ListSandboxInbox.
func (c *Client) AllSandboxInbox(ctx context.Context, params *api.ListSandboxInboxParams) iter.Seq2[api.SandboxInboxEntry, error] {
	return all(params, func(p *api.ListSandboxInboxParams) **int64 { return &p.Page }, nil,
		func(p *api.ListSandboxInboxParams) (*Page[api.SandboxInboxEntry], error) {
			return c.ListSandboxInbox(ctx, p)
		})
}

// ListSandboxBankFiles reads one page of the files the sandbox's mock bank
// exchanged for the caller's customer tree (pain.001 in, pain.002 out),
// newest first, without their XML (GetSandboxBankFile).
func (c *Client) ListSandboxBankFiles(ctx context.Context, params *api.ListSandboxBankFilesParams) (*Page[api.BankFile], error) {
	return list[api.BankFile](ctx, c, call{op: opListSandboxBankFiles, params: params})
}

// AllSandboxBankFiles iterates over every page of ListSandboxBankFiles.
func (c *Client) AllSandboxBankFiles(ctx context.Context, params *api.ListSandboxBankFilesParams) iter.Seq2[api.BankFile, error] {
	return all(params, func(p *api.ListSandboxBankFilesParams) **int64 { return &p.Page }, nil,
		func(p *api.ListSandboxBankFilesParams) (*Page[api.BankFile], error) {
			return c.ListSandboxBankFiles(ctx, p)
		})
}

// GetSandboxBankFile downloads one of the mock bank's files: its XML, as
// the bank received or wrote it. Close it after reading.
func (c *Client) GetSandboxBankFile(ctx context.Context, id string) (io.ReadCloser, error) {
	a, err := c.exchange(ctx, call{op: opGetSandboxBankFile, path: []string{id}, accept: "application/xml", stream: true})
	if err != nil {
		return nil, err
	}
	return a.stream, nil
}

// ReceiveSandboxNotification posts a notification to the sandbox inbox of
// the application clientID, as bankrail's sender does: body exactly as
// signed, with its signature headers (X-Service-Signed, X-Service-Timed,
// ...). A signature that does not hold is a 400 *Error (the inbox keeps the
// notification anyway).
func (c *Client) ReceiveSandboxNotification(ctx context.Context, clientID string, header http.Header, body []byte) error {
	if body == nil {
		body = []byte{}
	}
	return none(ctx, c, call{op: opReceiveSandboxNotification, path: []string{clientID}, header: header.Clone(), raw: body})
}

// AuthoriseSandboxPayment plays the payer's and the bank's part (sandbox):
// COMPLETED, REFUSED_BY_BANK, DELAYED_AT_BANK>COMPLETED, ...
func (c *Client) AuthoriseSandboxPayment(ctx context.Context, id string, body api.SandboxAuthoriseRequest) (*api.Payment, error) {
	return decode[api.Payment](ctx, c, call{op: opAuthoriseSandboxPayment, path: []string{id}, body: body})
}

// AuthoriseSandboxMandate plays the payer's answer to a REQUESTED mandate.
func (c *Client) AuthoriseSandboxMandate(ctx context.Context, id string, body api.SandboxMandateAuthoriseRequest) (*api.Mandate, error) {
	return decode[api.Mandate](ctx, c, call{op: opAuthoriseSandboxMandate, path: []string{id}, body: body})
}

// ApproveSandboxAmendment plays the payer's approval of an amendment.
func (c *Client) ApproveSandboxAmendment(ctx context.Context, id string) (*api.Amendment, error) {
	return decode[api.Amendment](ctx, c, call{op: opApproveSandboxAmendment, path: []string{id}})
}

// AmendmentApprovalURL is the mock bank's page where the payer answers
// amendment id (sandbox), named by the Link header (rel="approval") of
// GET /amendments/{id}: the amendment record, the contract's, has no field
// for it. It is "" once the amendment is answered.
func (c *Client) AmendmentApprovalURL(ctx context.Context, id string) (string, error) {
	a, err := c.exchange(ctx, call{op: opGetAmendment, path: []string{id}})
	if err != nil {
		return "", err
	}
	return api.LinkTarget(a.header, "approval"), nil
}

// DeclineSandboxAmendment plays the payer's refusal of an amendment.
func (c *Client) DeclineSandboxAmendment(ctx context.Context, id string) (*api.Amendment, error) {
	return decode[api.Amendment](ctx, c, call{op: opDeclineSandboxAmendment, path: []string{id}})
}

// DepositSandboxChannel plays a stablecoin deposit on a channel (sandbox).
func (c *Client) DepositSandboxChannel(ctx context.Context, channelID string, body api.SandboxChannelDepositRequest) (*api.ChannelPayment, error) {
	return decode[api.ChannelPayment](ctx, c, call{op: opDepositSandboxChannel, path: []string{channelID}, body: body})
}

// Payin simulates incoming funds on a Connect account (sandbox). The same
// externalPaymentId is taken once, so it is retried like a read.
func (c *Client) Payin(ctx context.Context, body api.SimulatedIncomingTransaction) error {
	return none(ctx, c, call{op: opPayin, body: body})
}
