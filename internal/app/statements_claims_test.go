package app_test

import (
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/camt/camttest"
	"github.com/bankrail/bankrail/internal/ids"
)

// TestStatementClaimsOnlyWhatTheLedgerCannot: incoming funds that name no
// outgoing transfer leave no claim row (their ledger transaction's
// external id is their identity), what else an entry can be (a credit
// whose EndToEndId is a bankrail id, a debit kept as an exception) is
// claimed; the same file again changes nothing and counts every entry a
// duplicate, the entry repeated within the file too. Both engines.
func TestStatementClaimsOnlyWhatTheLedgerCannot(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		a := env.App
		acct := openEUR(t, a, "claims")
		p := expectPayment(t, a, "", 2050)
		entries := []camttest.Entry{
			{AcctSvcrRef: "C1", Minor: 2050, Credit: true, Txs: []camttest.Tx{{Ustrd: []string{p.ID}}}},    // matched: no claim
			{AcctSvcrRef: "C2", Minor: 700, Credit: true, Txs: []camttest.Tx{{EndToEndID: "NOTPROVIDED"}}}, // manual: no claim
			{NtryRef: "C3", Minor: 1500, Credit: true, Txs: []camttest.Tx{{Minor: 1000}, {Minor: 500}}},    // a batch: no claim
			{Minor: 300, Credit: true, Txs: []camttest.Tx{{Ustrd: []string{"no reference of the bank"}}}},  // by digest: no claim
			{AcctSvcrRef: "C5", Minor: 400, Credit: true, Txs: []camttest.Tx{{EndToEndID: ids.New()}}},     // names no transfer: claimed
			{AcctSvcrRef: "D1", Minor: 100, Txs: []camttest.Tx{{Ustrd: []string{"fee"}}}},                  // an exception: claimed
			{AcctSvcrRef: "C2", Minor: 700, Credit: true, Txs: []camttest.Tx{{EndToEndID: "NOTPROVIDED"}}}, // C2 again in the file
		}
		doc := camttest.String(53, 8, "CL", camttest.Stmt{IBAN: acct.IBAN, Entries: entries})
		s := importDoc(t, a, "claims", doc)
		if s.Matched != 1 || s.ManualCredits != 5 || s.Exceptions != 1 || s.Duplicates != 1 || len(s.Rejected) != 0 {
			t.Fatalf("summary: matched %d, manual %d, exceptions %d, duplicates %d, rejected %v; want 1, 5, 1, 1, none",
				s.Matched, s.ManualCredits, s.Exceptions, s.Duplicates, s.Rejected)
		}
		write, _ := a.Store().Pools()
		var claims int
		if err := write.QueryRow(`SELECT COUNT(*) FROM statement_entries`).Scan(&claims); err != nil {
			t.Fatal(err)
		}
		if claims != 2 {
			t.Fatalf("%d claim rows, want 2 (C5 and D1)", claims)
		}
		want := int64(2050 + 700 + 1500 + 300 + 400)
		if got := booked(t, a, acct.ID); got != want {
			t.Fatalf("ledger %d, want %d", got, want)
		}
		for _, name := range []string{"claims again", "claims a third time"} {
			again := importDoc(t, a, name, doc)
			if again.Duplicates != len(entries) || again.Matched+again.ManualCredits+again.Exceptions+len(again.Rejected) != 0 {
				t.Fatalf("%s: %+v", name, again)
			}
			if got := booked(t, a, acct.ID); got != want {
				t.Fatalf("ledger after %s %d, want %d", name, got, want)
			}
		}
		var exceptions int
		if err := write.QueryRow(`SELECT COUNT(*) FROM reconciliation_exceptions WHERE account_id = $1`, acct.ID).Scan(&exceptions); err != nil {
			t.Fatal(err)
		}
		if exceptions != 1 {
			t.Fatalf("%d exceptions after the repeats, want 1", exceptions)
		}
	})
}
