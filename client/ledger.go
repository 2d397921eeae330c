package client

import (
	"context"
	"iter"

	"github.com/bankrail/bankrail/api"
)

// ListAccounts reads one page of Connect accounts with their balances.
func (c *Client) ListAccounts(ctx context.Context, params *api.ListAccountsParams) (*Page[api.Account], error) {
	return list[api.Account](ctx, c, call{op: opListAccounts, params: params})
}

// AllAccounts iterates over every page of ListAccounts.
func (c *Client) AllAccounts(ctx context.Context, params *api.ListAccountsParams) iter.Seq2[api.Account, error] {
	return all(params, func(p *api.ListAccountsParams) **int64 { return &p.Page },
		func(p *api.ListAccountsParams) **string { return &p.Cursor },
		func(p *api.ListAccountsParams) (*Page[api.Account], error) { return c.ListAccounts(ctx, p) })
}

// GetAccount reads an account with its balance.
func (c *Client) GetAccount(ctx context.Context, id string) (*api.Account, error) {
	return decode[api.Account](ctx, c, call{op: opGetAccount, path: []string{id}})
}

// ListAccountTransactions reads one page of an account's transactions,
// newest first.
func (c *Client) ListAccountTransactions(ctx context.Context, accountID string, params *api.ListAccountTransactionsParams) (*Page[api.AccountTransaction], error) {
	return list[api.AccountTransaction](ctx, c, call{op: opListAccountTransactions, path: []string{accountID}, params: params})
}

// AllAccountTransactions iterates over every page of ListAccountTransactions.
func (c *Client) AllAccountTransactions(ctx context.Context, accountID string, params *api.ListAccountTransactionsParams) iter.Seq2[api.AccountTransaction, error] {
	return all(params, func(p *api.ListAccountTransactionsParams) **int64 { return &p.Page },
		func(p *api.ListAccountTransactionsParams) **string { return &p.Cursor },
		func(p *api.ListAccountTransactionsParams) (*Page[api.AccountTransaction], error) {
			return c.ListAccountTransactions(ctx, accountID, p)
		})
}

// GetTransaction reads a transaction.
func (c *Client) GetTransaction(ctx context.Context, id string) (*api.AccountTransaction, error) {
	return decode[api.AccountTransaction](ctx, c, call{op: opGetTransaction, path: []string{id}})
}

// CreateChannel opens a stablecoin deposit channel (sandbox).
func (c *Client) CreateChannel(ctx context.Context, body api.ChannelCreateRequest) (*api.Channel, error) {
	return decode[api.Channel](ctx, c, call{op: opCreateChannel, body: body})
}

// ListChannels reads one page of channels, newest first.
func (c *Client) ListChannels(ctx context.Context, params *api.ListChannelsParams) (*Page[api.Channel], error) {
	return list[api.Channel](ctx, c, call{op: opListChannels, params: params})
}

// AllChannels iterates over every page of ListChannels.
func (c *Client) AllChannels(ctx context.Context, params *api.ListChannelsParams) iter.Seq2[api.Channel, error] {
	return all(params, func(p *api.ListChannelsParams) **int64 { return &p.Page },
		func(p *api.ListChannelsParams) **string { return &p.Cursor },
		func(p *api.ListChannelsParams) (*Page[api.Channel], error) { return c.ListChannels(ctx, p) })
}

// GetChannel reads a channel.
func (c *Client) GetChannel(ctx context.Context, id string) (*api.Channel, error) {
	return decode[api.Channel](ctx, c, call{op: opGetChannel, path: []string{id}})
}

// ListChannelPayments reads one page of a channel's deposits, oldest first
// (this list has no counts: its Page ends at a short page).
func (c *Client) ListChannelPayments(ctx context.Context, channelID string, params *api.ListChannelPaymentsParams) (*Page[api.ChannelPayment], error) {
	return list[api.ChannelPayment](ctx, c, call{op: opListChannelPayments, path: []string{channelID}, params: params})
}

// AllChannelPayments iterates over every page of ListChannelPayments.
func (c *Client) AllChannelPayments(ctx context.Context, channelID string, params *api.ListChannelPaymentsParams) iter.Seq2[api.ChannelPayment, error] {
	return all(params, func(p *api.ListChannelPaymentsParams) **int64 { return &p.Page },
		func(p *api.ListChannelPaymentsParams) **string { return &p.Cursor },
		func(p *api.ListChannelPaymentsParams) (*Page[api.ChannelPayment], error) {
			return c.ListChannelPayments(ctx, channelID, p)
		})
}

// GetChannelPayment reads a channel deposit.
func (c *Client) GetChannelPayment(ctx context.Context, id string) (*api.ChannelPayment, error) {
	return decode[api.ChannelPayment](ctx, c, call{op: opGetChannelPayment, path: []string{id}})
}

// CreatePayout pays out of a Connect account; an Idempotency-Key is made up
// unless params carries one.
func (c *Client) CreatePayout(ctx context.Context, body api.PayoutRequest, params *api.CreatePayoutParams) (*api.Payout, error) {
	return decode[api.Payout](ctx, c, call{op: opCreatePayout, body: body, params: params})
}

// ListPayouts reads one page of payouts, newest first.
func (c *Client) ListPayouts(ctx context.Context, params *api.ListPayoutsParams) (*Page[api.Payout], error) {
	return list[api.Payout](ctx, c, call{op: opListPayouts, params: params})
}

// AllPayouts iterates over every page of ListPayouts.
func (c *Client) AllPayouts(ctx context.Context, params *api.ListPayoutsParams) iter.Seq2[api.Payout, error] {
	return all(params, func(p *api.ListPayoutsParams) **int64 { return &p.Page },
		func(p *api.ListPayoutsParams) **string { return &p.Cursor },
		func(p *api.ListPayoutsParams) (*Page[api.Payout], error) { return c.ListPayouts(ctx, p) })
}

// GetPayout reads a payout.
func (c *Client) GetPayout(ctx context.Context, id string) (*api.Payout, error) {
	return decode[api.Payout](ctx, c, call{op: opGetPayout, path: []string{id}})
}

// ListAccountHolderVerifications finds a payout's account holder
// verification (params.TransactionID is the payout's id): a list of one,
// or none.
func (c *Client) ListAccountHolderVerifications(ctx context.Context, params api.ListAccountHolderVerificationsParams) ([]api.AccountHolderVerification, error) {
	list, err := decode[[]api.AccountHolderVerification](ctx, c, call{op: opListAccountHolderVerifications, params: params})
	if err != nil {
		return nil, err
	}
	return *list, nil
}

// GetAccountHolderVerification reads an account holder verification.
func (c *Client) GetAccountHolderVerification(ctx context.Context, id string) (*api.AccountHolderVerification, error) {
	return decode[api.AccountHolderVerification](ctx, c, call{op: opGetAccountHolderVerification, path: []string{id}})
}

// ApproveAccountHolderVerification lets a held payout go on.
func (c *Client) ApproveAccountHolderVerification(ctx context.Context, id string) (*api.AccountHolderVerification, error) {
	return decode[api.AccountHolderVerification](ctx, c, call{op: opApproveAccountHolderVerification, path: []string{id}})
}

// RejectAccountHolderVerification rejects a held payout.
func (c *Client) RejectAccountHolderVerification(ctx context.Context, id string) (*api.AccountHolderVerification, error) {
	return decode[api.AccountHolderVerification](ctx, c, call{op: opRejectAccountHolderVerification, path: []string{id}})
}
