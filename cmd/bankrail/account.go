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

// accountList binds the flags of "bankrail account list".
func accountList(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App) error {
	var customer, currency string
	fs.StringVar(&customer, "customer", "", "only the accounts of this customer uuid")
	fs.StringVar(&currency, "currency", "", "only the accounts in this currency, e.g. EUR")
	return func(ctx context.Context, a *app.App) error {
		accts, err := a.Store().AccountsOf(ctx, customer)
		if err != nil {
			return err
		}
		tw, flush := table(stdout, "ID\tCUSTOMER\tCURRENCY\tIBAN\tSTATUS\tAVAILABLE\tNICKNAME")
		for _, ac := range accts {
			if currency != "" && !strings.EqualFold(ac.Currency, currency) {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", ac.ID, ac.CustomerID, ac.Currency, ac.IBAN, ac.Status,
				major(ac.Balance.Available, ac.Currency), orDash(ac.Nickname))
		}
		return flush()
	}
}

// accountGet binds the flags of "bankrail account get".
func accountGet(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App) error {
	var id, iban string
	fs.StringVar(&id, "id", "", "account uuid (or --iban)")
	fs.StringVar(&iban, "iban", "", "the account's IBAN (or --id)")
	return func(ctx context.Context, a *app.App) error {
		var ac ledger.Account
		var err error
		switch {
		case (id == "") == (iban == ""):
			return errors.New("give --id or --iban")
		case id != "":
			if ac, err = a.Store().AccountByID(ctx, strings.ToLower(id)); err != nil {
				return fmt.Errorf("--id: %w", err)
			}
		default:
			if ac, err = a.Store().Ledger().AccountByIBAN(ctx, strings.ToUpper(strings.ReplaceAll(iban, " ", ""))); err != nil {
				return fmt.Errorf("--iban: %w", err)
			}
		}
		tw, flush := table(stdout, "account\t"+ac.ID)
		fmt.Fprintf(tw, "customer\t%s\ntype\t%s\nstatus\t%s\ncurrency\t%s\niban\t%s\nnickname\t%s\ncreated\t%s\n",
			ac.CustomerID, ac.Type, ac.Status, ac.Currency, ac.IBAN, orDash(ac.Nickname), when(ac.CreatedAt))
		fmt.Fprintf(tw, "available\t%s\npending\t%s\nheld\t%s\n", major(ac.Balance.Available, ac.Currency),
			major(ac.Balance.Pending, ac.Currency), major(ac.Balance.Held, ac.Currency))
		return flush()
	}
}
