package alias

import (
	"context"
	"slices"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ledger"
)

// Resolver tells the ledger which account an alias IBAN stands for
// (ledger.AliasResolver, plugged in with ledger.Service.UseAliases): a
// payment whose beneficiary IBAN is an active alias of one of the
// customer's ACTIVE Connect accounts in its currency is expected on that
// account. An inactive alias names no account: such a payment is not
// expected (funds sent to it later bounce, docs/aliases.md).
type Resolver struct {
	Aliases Repository // reads
}

// AliasAccount returns the id of the account iban (normalised) is an
// active alias of; ok is false when it is no alias or an inactive one. It
// looks only when iban has the shape of an alias of one of accounts (the
// candidates, CouldBeAliasOf): a payment to an IBAN of another bank, the
// common case, costs no query.
func (r Resolver) AliasAccount(ctx context.Context, iban string, accounts []ledger.Account) (string, bool, error) {
	if !slices.ContainsFunc(accounts, func(a ledger.Account) bool { return CouldBeAliasOf(iban, a.IBAN) }) {
		return "", false, nil
	}
	a, err := r.Aliases.ByIBAN(ctx, iban)
	switch {
	case errs.Is(err, errs.NotFound):
		return "", false, nil
	case err != nil:
		return "", false, err
	}
	return a.AccountID, a.Active, nil
}
