package app_test

import (
	"testing"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/iso"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/paging"
	"github.com/bankrail/bankrail/internal/seed"
)

const accountsSeed = `
customers:
  - id: 5e000000-0000-4000-8000-0000000000c1
    name: Account Shop
    accounts:
      - currency: EUR                # no id, no iban: both derived, the same on every start
        nickname: main
      - id: 5e000000-0000-4000-8000-0000000000e2
        currency: GBP
        iban: GB33 BUKB 2020 1555 5555 55
`

// Accounts of a seed file are opened once: a second start with the same
// file finds them unchanged (same ids, IBANs); a generated IBAN is valid.
// Without a seed the sandbox demo merchant gets its EUR and GBP accounts.
func TestSeedAccountsAndDemoAccounts(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		ctx := adminContext()
		f, err := seed.Parse([]byte(accountsSeed))
		if err != nil {
			t.Fatal(err)
		}
		cfg := config.Default()
		cfg.DataDir, cfg.DatabaseURL = t.TempDir(), db.DatabaseURL
		if db.Engine == dbtest.SQLite {
			cfg.DataDir = db.DataDir
		}
		cheap := identity.HashParams{Time: 1, Memory: 1024, Threads: 1}
		start := func(f *seed.File) *app.App {
			a, err := app.New(ctx, cfg, quietLog(), app.Options{HashParams: &cheap, Seed: f})
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		const shop = "5e000000-0000-4000-8000-0000000000c1"
		list := func(a *app.App) []ledger.Account {
			accts, total, err := paging.Unpack(a.Accounts().ListAccounts(ctx, shop, ledger.AccountFilter{}))
			if err != nil || total != 2 {
				t.Fatalf("seeded accounts: %d %v", total, err)
			}
			return accts
		}
		a := start(&f)
		first := list(a)
		a.Close()
		b := start(&f)
		second := list(b)
		b.Close()
		for i := range first {
			if first[i].ID != second[i].ID || first[i].IBAN != second[i].IBAN {
				t.Fatalf("second start changed account %d: %+v -> %+v", i, first[i], second[i])
			}
			if iso.CheckIBAN(first[i].IBAN) != iso.IBANOK {
				t.Fatalf("account IBAN %q is not valid", first[i].IBAN)
			}
		}
		if first[0].ID != "5e000000-0000-4000-8000-0000000000e2" || first[0].IBAN != "GB33BUKB20201555555555" || first[0].Country != "GB" {
			t.Fatalf("GBP account %+v", first[0])
		}
		if first[1].Currency != "EUR" || first[1].Nickname != "main" || first[1].Country != "DE" {
			t.Fatalf("EUR account %+v", first[1])
		}
	})
}

func TestDemoMerchantHasEURAndGBPAccounts(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cheap := identity.HashParams{Time: 1, Memory: 1024, Threads: 1}
	a, err := app.New(adminContext(), cfg, quietLog(), app.Options{HashParams: &cheap})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for cur, iban := range map[string]string{"EUR": seed.DemoEURIBAN, "GBP": seed.DemoGBPIBAN} {
		acct, ok, err := a.Accounts().ConnectAccount(adminContext(), seed.DemoCustomerID, cur)
		if err != nil || !ok || acct.IBAN != iban || iso.CheckIBAN(iban) != iso.IBANOK {
			t.Fatalf("demo %s account: %+v %v %v", cur, acct, ok, err)
		}
	}
}
