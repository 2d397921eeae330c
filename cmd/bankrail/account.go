package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ledger"
)

// accountCreate binds the flags of "bankrail account create".
func accountCreate(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App) error {
	var spec ledger.AccountSpec
	fs.StringVar(&spec.CustomerID, "customer", "", "uuid of the owning customer (required)")
	fs.StringVar(&spec.Currency, "currency", "", "ISO 4217 currency of the account, e.g. EUR (required)")
	fs.StringVar(&spec.Nickname, "nickname", "", "a name for people")
	fs.StringVar(&spec.IBAN, "iban", "", "the account's IBAN (generated when empty)")
	fs.StringVar(&spec.ID, "id", "", "account uuid (derived when empty)")
	return func(ctx context.Context, a *app.App) error {
		if _, err := a.Store().GetCustomer(ctx, spec.CustomerID); err != nil {
			return fmt.Errorf("--customer: %w", err)
		}
		acct, created, err := a.Accounts().EnsureAccount(ctx, spec)
		var e *errs.Error
		if errors.As(err, &e) && len(e.Fields) > 0 {
			msgs := make([]string, 0, len(e.Fields))
			for _, f := range e.Fields {
				msgs = append(msgs, "--"+f.PropertyPath+": "+f.Message)
			}
			return errors.New(strings.Join(msgs, "; "))
		}
		if err != nil {
			return err
		}
		outcome := "unchanged"
		if created {
			outcome = "created"
		}
		fmt.Fprintf(stdout, "account %s %s: %s %s for customer %s\n", acct.ID, outcome, acct.Currency, acct.IBAN, acct.CustomerID)
		return nil
	}
}
