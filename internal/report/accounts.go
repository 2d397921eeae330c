package report

import (
	"context"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ledger"
)

// AccountReader reads a ledger account visible to a viewer (the ledger's
// repository and service implement it).
type AccountReader interface {
	Account(ctx context.Context, viewerCustomerID, id string) (ledger.Account, error)
}

// LedgerAccounts is Accounts over the ledger: an account is visible when
// the ledger shows it to the viewer (its customer is the viewer or below it).
type LedgerAccounts struct{ Ledger AccountReader }

// Visible reports whether accountID is a Connect account of viewer or of
// a customer below it; an unknown or foreign account is false, not an error.
func (a LedgerAccounts) Visible(ctx context.Context, viewer, accountID string) (bool, error) {
	acct, err := a.Ledger.Account(ctx, viewer, accountID)
	switch {
	case errs.Is(err, errs.NotFound):
		return false, nil
	case err != nil:
		return false, err
	}
	return acct.Type == ledger.Connected, nil
}

// LedgerTypes are the ledger transaction types a CONNECT report's
// transactionTypes select: PAYMENT the incoming types (GATEWAY_PAYMENT,
// MANUAL_CREDIT, TOP_UP), REFUND the refunds.
func LedgerTypes(transactionTypes []string) []string {
	var out []string
	for _, t := range transactionTypes {
		switch t {
		case "PAYMENT":
			out = append(out, string(ledger.TypeGatewayPayment), string(ledger.TypeManualCredit), string(ledger.TypeTopUp))
		case "REFUND":
			out = append(out, string(ledger.TypeRefund))
		}
	}
	return out
}
