package app_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/camt/camttest"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/payout"
	"github.com/bankrail/bankrail/internal/statement"
	"github.com/bankrail/bankrail/internal/transfer"
)

// operatorContext acts as the instance's operator.
func operatorContext() context.Context {
	return identity.WithPrincipal(context.Background(), identity.Principal{Role: identity.RoleOperator, Username: "op"})
}

// merchantContext acts as an ADMIN of customer.
func merchantContext(customer string) context.Context {
	return identity.WithPrincipal(context.Background(), identity.Principal{Role: identity.RoleAdmin, CustomerID: customer, ClientID: "shop-client"})
}

// importDoc imports doc as the operator.
func importDoc(t testing.TB, a *app.App, name, doc string) statement.Summary {
	t.Helper()
	s, err := a.Statements().Import(operatorContext(), name, strings.NewReader(doc))
	if err != nil {
		t.Fatalf("import %s: %v", name, err)
	}
	return s
}

// openEUR opens a Connect account of the shop.
func openEUR(t testing.TB, a *app.App, nickname string) ledger.Account {
	t.Helper()
	acct, _, err := a.Accounts().EnsureAccount(context.Background(), ledger.AccountSpec{CustomerID: apptest.ShopID, Currency: "EUR", Nickname: nickname})
	if err != nil {
		t.Fatal(err)
	}
	return acct
}

// newPayout creates a payout of amount from acct (PROCESSING in
// production: its holder name matches).
func newPayout(t testing.TB, a *app.App, acct ledger.Account, amount int64) string {
	t.Helper()
	resp, err := a.Payouts().Create(merchantContext(apptest.ShopID), payout.Input{ViewerCustomerID: apptest.ShopID, ClientID: "shop-client",
		AccountID: acct.ID, Amount: amount, Currency: "EUR", PaymentReference: "payout", Type: payout.TypePayout,
		Beneficiary: payout.Beneficiary{Name: "Bob Builder", IBAN: "FR1420041010050500013M02606"}},
		func(p payout.Payout) ([]byte, error) { return []byte(p.ID), nil })
	if err != nil {
		t.Fatal(err)
	}
	return resp.ResourceID
}

func payoutStatus(t testing.TB, a *app.App, id string) payout.Status {
	t.Helper()
	p, err := a.Payouts().Get(merchantContext(apptest.ShopID), apptest.ShopID, id)
	if err != nil {
		t.Fatal(err)
	}
	return p.Status
}

// booked is the account's money at the bank by the ledger: available and
// held (in flight, not yet debited).
func booked(t testing.TB, a *app.App, id string) int64 {
	t.Helper()
	acct, err := a.Accounts().Account(merchantContext(apptest.ShopID), apptest.ShopID, id)
	if err != nil {
		t.Fatal(err)
	}
	return acct.Balance.Available + acct.Balance.Held
}

// A payout debited by the bank is COMPLETED; one the beneficiary's bank
// returned is FAILED with its funds back; a return of one completed
// earlier credits its funds back; the day's camt.053 repeating the
// camt.054 changes nothing.
func TestStatementBooksPayoutsAndTheirReturns(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		a := env.App
		acct := openEUR(t, a, "payouts")
		fund := camttest.Entry{AcctSvcrRef: "FUND", Minor: 10000, Credit: true}
		if s := importDoc(t, a, "fund", camttest.String(54, 8, "F", camttest.Stmt{IBAN: acct.IBAN, Entries: []camttest.Entry{fund}})); s.ManualCredits != 1 {
			t.Fatalf("funding %+v", s)
		}
		paid, back := newPayout(t, a, acct, 1000), newPayout(t, a, acct, 2000)
		if st := payoutStatus(t, a, paid); st != payout.Processing {
			t.Fatalf("payout is %s, want PROCESSING in production", st)
		}
		debit := camttest.Entry{AcctSvcrRef: "D1", Minor: 1000, Txs: []camttest.Tx{{EndToEndID: strings.ReplaceAll(paid, "-", "")}}}
		ret := camttest.Entry{AcctSvcrRef: "R1", Minor: 2000, Credit: true, Txs: []camttest.Tx{{EndToEndID: back, Return: true, Reason: "AC04"}}}
		s := importDoc(t, a, "advice", camttest.String(54, 8, "A", camttest.Stmt{IBAN: acct.IBAN, Entries: []camttest.Entry{debit, ret}}))
		if s.OutgoingConfirmed != 1 || s.Returned != 1 || s.Exceptions != 0 {
			t.Fatalf("advice %+v", s)
		}
		if st := payoutStatus(t, a, paid); st != payout.Completed {
			t.Fatalf("debited payout is %s", st)
		}
		if st := payoutStatus(t, a, back); st != payout.Failed {
			t.Fatalf("returned payout is %s", st)
		}
		for _, id := range []string{paid, back} { // booked through their transfers (queued in production)
			if tr, err := a.Store().Transfers().Get(adminContext(), id); err != nil || tr.State != transfer.Booked {
				t.Fatalf("transfer of payout %s: %s %v, want BOOKED", id, tr.State, err)
			}
		}
		if got := booked(t, a, acct.ID); got != 9000 {
			t.Fatalf("ledger %d, want 9000", got)
		}
		late := camttest.Entry{AcctSvcrRef: "R2", Minor: 1000, Credit: true, Txs: []camttest.Tx{{EndToEndID: paid, Return: true}}}
		closing := int64(10000)
		s = importDoc(t, a, "day", camttest.String(53, 2, "D", camttest.Stmt{IBAN: acct.IBAN, Closing: &closing,
			Entries: []camttest.Entry{fund, debit, ret, late}}))
		if s.Duplicates != 3 || s.Returned != 1 || s.Accounts[0].Difference == nil || *s.Accounts[0].Difference != 0 {
			t.Fatalf("day %+v (difference %v)", s, s.Accounts[0].Difference)
		}
		if got := booked(t, a, acct.ID); got != 10000 || payoutStatus(t, a, paid) != payout.Completed {
			t.Fatalf("ledger %d after the late return, want 10000", got)
		}
	}, apptest.Production)
}

// TestStatementEntriesInABatchEachMatch: a batch entry's transactions are
// each their own incoming payment; one that cannot be booked rejects the
// entry whole.
func TestStatementEntriesInABatchEachMatch(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		a := env.App
		acct := openEUR(t, a, "batch")
		batch := camttest.Entry{NtryRef: "B", Minor: 1500, Credit: true, Txs: []camttest.Tx{{Minor: 1000, Ustrd: []string{"one"}}, {Minor: 500, Ustrd: []string{"two"}}}}
		wrong := camttest.Entry{NtryRef: "W", Minor: 1600, Credit: true, Txs: []camttest.Tx{{Minor: 1000}, {Minor: 500}}}
		s := importDoc(t, a, "batch", camttest.String(53, 4, "B", camttest.Stmt{IBAN: acct.IBAN, Entries: []camttest.Entry{batch, wrong}}))
		if s.ManualCredits != 2 || len(s.Rejected) != 1 || !strings.Contains(s.Rejected[0].Reason, "add up to 15.00 EUR") ||
			s.Accounts[0].Credited.Count != 2 || s.Accounts[0].Credited.Amount != 1500 {
			t.Fatalf("summary %+v", s)
		}
		if got := booked(t, a, acct.ID); got != 1500 {
			t.Fatalf("ledger %d, want 1500", got)
		}
	})
}

var _ = fmt.Sprint
