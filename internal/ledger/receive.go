package ledger

import (
	"context"
	"fmt"
	"strings"

	"github.com/bankrail/bankrail/internal/iso"
)

// Payee is how a payment names the account its money goes to: its
// beneficiary's account identifiers.
type Payee struct {
	IBAN          string
	SortCode      string // UK, with AccountNumber, when there is no IBAN
	AccountNumber string
}

// AliasResolver finds the account an alias IBAN stands for. Account aliases
// (virtual IBANs of a Connect account, issue 13) plug in here, through
// Service.UseAliases: a payment whose beneficiary is an alias of the
// account is expected on that account like one naming the account's own
// IBAN. Without a resolver no IBAN is an alias.
type AliasResolver interface {
	// AliasAccount returns the id of the account of which iban (normalised)
	// is an active alias; ok is false when it is none. Only an alias of one
	// of accounts matters to the caller: the resolver may answer false
	// without looking when iban cannot be one of theirs.
	AliasAccount(ctx context.Context, iban string, accounts []Account) (accountID string, ok bool, err error)
}

// UseAliases makes alias IBANs name their accounts in ReceivingAccount.
func (s *Service) UseAliases(r AliasResolver) { s.aliases = r }

// ReceivingAccount is the ACTIVE Connect account of customerID in currency
// that a payment to payee pays into, if any (docs/decisions.md, "A payment
// is expected only where its money goes"):
//
//   - no payee (the payment names no beneficiary): the customer's oldest
//     such account, which then becomes the beneficiary;
//   - a payee: the account it names, by the account's IBAN, by an alias
//     IBAN of it (AliasResolver), or, for an account with a GB IBAN, by the
//     sort code and account number inside that IBAN. A payee that names
//     none of them sends the money elsewhere: ok is false, the payment is
//     not expected on any account.
func (s *Service) ReceivingAccount(ctx context.Context, customerID, currency string, payee *Payee) (Account, bool, error) {
	accounts, err := s.repo.ConnectAccounts(ctx, customerID, currency)
	if err != nil || len(accounts) == 0 {
		return Account{}, false, err
	}
	if payee == nil {
		return accounts[0], true, nil
	}
	iban := iso.NormalizeIBAN(payee.IBAN)
	sortCode := sortCodeSeparators.Replace(payee.SortCode)
	number := strings.ReplaceAll(payee.AccountNumber, " ", "")
	for _, a := range accounts {
		switch {
		case iban != "" && iban == a.IBAN:
			return a, true, nil
		case iban == "" && sortCode != "" && number != "" && sortCode+number == ukIdentifiers(a.IBAN):
			return a, true, nil
		}
	}
	if iban == "" || s.aliases == nil {
		return Account{}, false, nil
	}
	id, ok, err := s.aliases.AliasAccount(ctx, iban, accounts)
	if err != nil || !ok {
		return Account{}, false, err
	}
	for _, a := range accounts {
		if a.ID == id {
			return a, true, nil
		}
	}
	return Account{}, false, nil
}

// sortCodeSeparators drops the dashes and spaces of a written sort code.
// Made once: a Replacer is built on its first use, and every POST /payments
// with a beneficiary asks for one.
var sortCodeSeparators = strings.NewReplacer("-", "", " ", "")

// ukIdentifiers is the sort code and account number inside a GB IBAN
// (GBkk BBBB SSSSSS NNNNNNNN), or "" for any other IBAN.
func ukIdentifiers(iban string) string {
	if iso.IBANCountry(iban) != "GB" || len(iban) != 22 {
		return ""
	}
	return iban[8:22]
}

// String names the payee for logs.
func (p Payee) String() string {
	if p.IBAN != "" {
		return p.IBAN
	}
	return fmt.Sprintf("%s %s", p.SortCode, p.AccountNumber)
}
