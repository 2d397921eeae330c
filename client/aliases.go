package client

import (
	"context"
	"iter"

	"github.com/bankrail/bankrail/api"
)

// CreateAliasOrder orders body.Count virtual IBANs (1..1000) for a Connect
// account; a worker issues them in batches (poll GetAliasOrder). An
// Idempotency-Key is made up when params has none.
func (c *Client) CreateAliasOrder(ctx context.Context, body api.AliasOrderRequest, params *api.CreateAliasOrderParams) (*api.AliasOrderCreated, error) {
	return decode[api.AliasOrderCreated](ctx, c, call{op: opCreateAliasOrder, body: body, params: params})
}

// GetAliasOrder reads an alias order: its status and how many aliases it
// has issued so far.
func (c *Client) GetAliasOrder(ctx context.Context, id string) (*api.AliasOrder, error) {
	return decode[api.AliasOrder](ctx, c, call{op: opGetAliasOrder, path: []string{id}})
}

// ListAccountAliases returns one page of aliases (filters orderId,
// accountId).
func (c *Client) ListAccountAliases(ctx context.Context, params *api.ListAccountAliasesParams) (*Page[api.AccountAlias], error) {
	return list[api.AccountAlias](ctx, c, call{op: opListAccountAliases, params: params})
}

// AllAccountAliases iterates over every page of ListAccountAliases.
func (c *Client) AllAccountAliases(ctx context.Context, params *api.ListAccountAliasesParams) iter.Seq2[api.AccountAlias, error] {
	return all(params, func(p *api.ListAccountAliasesParams) **int64 { return &p.Page },
		func(p *api.ListAccountAliasesParams) **string { return &p.Cursor },
		func(p *api.ListAccountAliasesParams) (*Page[api.AccountAlias], error) {
			return c.ListAccountAliases(ctx, p)
		})
}

// GetAccountAlias reads an alias.
func (c *Client) GetAccountAlias(ctx context.Context, id string) (*api.AccountAlias, error) {
	return decode[api.AccountAlias](ctx, c, call{op: opGetAccountAlias, path: []string{id}})
}

// UpdateAccountAlias switches an alias on or off; funds sent to an
// inactive alias bounce.
func (c *Client) UpdateAccountAlias(ctx context.Context, id string, body api.AccountAliasUpdate) (*api.AccountAlias, error) {
	return decode[api.AccountAlias](ctx, c, call{op: opUpdateAccountAlias, path: []string{id}, body: body})
}
