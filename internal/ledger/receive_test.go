package ledger

import (
	"context"
	"strings"
	"testing"
)

// accountsOnly is a Repository that knows only some Connect accounts.
type accountsOnly struct {
	Repository
	accounts []Account
}

func (r accountsOnly) ConnectAccounts(_ context.Context, customerID, currency string) ([]Account, error) {
	var out []Account
	for _, a := range r.accounts {
		if a.CustomerID == customerID && a.Currency == currency {
			out = append(out, a)
		}
	}
	return out, nil
}

type aliases map[string]string

func (m aliases) AliasAccount(_ context.Context, iban string, _ []Account) (string, bool, error) {
	id, ok := m[iban]
	return id, ok, nil
}

// A payment is expected on the account its money goes to: the oldest one
// without a beneficiary; the one a beneficiary names by IBAN (any spelling),
// by alias, or by the sort code and account number of a GB IBAN; none when
// the beneficiary names another account.
func TestReceivingAccount(t *testing.T) {
	t.Parallel()
	const shop = "c1"
	eur1 := Account{ID: "eur-1", CustomerID: shop, Currency: "EUR", IBAN: GenerateIBAN("eur-1", "EUR")}
	eur2 := Account{ID: "eur-2", CustomerID: shop, Currency: "EUR", IBAN: GenerateIBAN("eur-2", "EUR")}
	gbp := Account{ID: "gbp-1", CustomerID: shop, Currency: "GBP", IBAN: GenerateIBAN("gbp-1", "GBP")}
	other := Account{ID: "other", CustomerID: "c2", Currency: "EUR", IBAN: GenerateIBAN("other", "EUR")}
	s := NewService(accountsOnly{accounts: []Account{eur1, eur2, gbp, other}}, nil)
	spaced := eur2.IBAN[:4] + " " + eur2.IBAN[4:8] + " " + eur2.IBAN[8:]
	const alias = "DE44500105175407324931"
	for _, tc := range []struct {
		name     string
		customer string
		currency string
		payee    *Payee
		aliases  AliasResolver
		want     string // "" none
	}{
		{"no beneficiary: the oldest", shop, "EUR", nil, nil, eur1.ID},
		{"the second account's IBAN", shop, "EUR", &Payee{IBAN: eur2.IBAN}, nil, eur2.ID},
		{"its IBAN spaced and in lower case", shop, "EUR", &Payee{IBAN: strings.ToLower(spaced)}, nil, eur2.ID},
		{"another IBAN", shop, "EUR", &Payee{IBAN: "DE89370400440532013000"}, nil, ""},
		{"another customer's account", shop, "EUR", &Payee{IBAN: other.IBAN}, nil, ""},
		{"an IBAN of the account in another currency", shop, "GBP", &Payee{IBAN: eur1.IBAN}, nil, ""},
		{"no account in the currency", shop, "USD", nil, nil, ""},
		{"sort code and account number of the GB IBAN", shop, "GBP", &Payee{SortCode: gbp.IBAN[8:10] + "-" + gbp.IBAN[10:12] + "-" + gbp.IBAN[12:14], AccountNumber: gbp.IBAN[14:]}, nil, gbp.ID},
		{"another UK account", shop, "GBP", &Payee{SortCode: "040004", AccountNumber: "12345678"}, nil, ""},
		{"identifiers without an account", shop, "GBP", &Payee{}, nil, ""},
		{"an alias of the second account", shop, "EUR", &Payee{IBAN: alias}, aliases{alias: eur2.ID}, eur2.ID},
		{"an alias of another customer's account", shop, "EUR", &Payee{IBAN: alias}, aliases{alias: other.ID}, ""},
		{"an alias without a resolver", shop, "EUR", &Payee{IBAN: alias}, nil, ""},
	} {
		s.UseAliases(tc.aliases)
		a, ok, err := s.ReceivingAccount(context.Background(), tc.customer, tc.currency, tc.payee)
		if err != nil || ok != (tc.want != "") || a.ID != tc.want {
			t.Errorf("%s: %q %v %v, want %q", tc.name, a.ID, ok, err, tc.want)
		}
	}
}
