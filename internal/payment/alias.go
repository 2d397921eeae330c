package payment

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/money"
)

// Account aliases (internal/alias) are virtual IBANs of a Connect account.
// A new payment to an alias is expected on its account through the
// ledger's ReceivingAccount (ledger.AliasResolver, alias.Resolver); funds
// sent to an alias are routed through a unit of work (Repos) that is also
// AliasRepos. Without them an alias IBAN is unknown, as before aliases
// existed.

// AliasRepos is a unit of work that resolves aliases (the store's does).
type AliasRepos interface {
	AliasAccounts() AliasAccounts
}

// AliasAccounts resolves an alias IBAN.
type AliasAccounts interface {
	// AccountOfAlias returns the id of the account whose alias has iban
	// (normalised) and whether the alias is active; RESOURCE_NOT_FOUND
	// when no alias has it.
	AccountOfAlias(ctx context.Context, iban string) (accountID string, active bool, err error)
}

// aliasAccount finds the account of funds sent to an alias IBAN, as the
// viewer may see it, and whether they bounce (the alias is inactive).
func aliasAccount(ctx context.Context, r Repos, viewerCustomerID, iban string) (ledger.Account, bool, error) {
	ar, ok := r.(AliasRepos)
	if !ok {
		return ledger.Account{}, false, errs.NotFoundf("No account has the IBAN %s.", iban)
	}
	id, active, err := ar.AliasAccounts().AccountOfAlias(ctx, iban)
	if err != nil {
		return ledger.Account{}, false, err
	}
	acct, err := r.Ledger().Account(ctx, viewerCustomerID, id)
	return acct, !active, err
}

// bounceBack books funds sent to an inactive alias of acct: they arrive
// (INCOMING MANUAL_CREDIT, matched to nothing) and go back to their sender
// at once (OUTGOING BOUNCE_BACK), net zero on the balance. Nothing is
// lost: both stay on the account's transactions; a repeat of the
// externalPaymentId finds the first.
func bounceBack(ctx context.Context, r Repos, acct ledger.Account, in PayinInput, f Funds, now time.Time) (PayinOutcome, error) {
	amount, err := money.New(in.Amount, in.Currency)
	if err != nil {
		return PayinOutcome{}, err
	}
	t := ledger.Transaction{ID: ids.New(), AccountID: acct.ID, CustomerID: acct.CustomerID, Type: ledger.TypeManualCredit,
		Operation: ledger.Incoming, Status: ledger.TxCompleted, Amount: amount, ExternalID: in.ExternalPaymentID,
		Reference: in.PaymentReference, Counterparty: f.Sender, CreatedAt: now, UpdatedAt: now}
	e, err := ledger.Open(t, ids.New())
	if err != nil {
		return PayinOutcome{}, err
	}
	if err := r.Ledger().Record(ctx, t, e); err != nil {
		return PayinOutcome{}, err
	}
	back, be, err := ledger.Reverse(t, ids.New(), ids.New(), now)
	if err != nil {
		return PayinOutcome{}, err
	}
	return PayinOutcome{Transaction: t}, r.Ledger().Record(ctx, back, be)
}
