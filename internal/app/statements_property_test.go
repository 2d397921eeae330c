package app_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/camt/camttest"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/statement"
)

// TestStatementImportProperty generates a day of bank movements on a
// Connect account (credits, batches of credits, debits of payouts
// bankrail sent, returns of some of them, bank fees it did not send,
// pending entries, odd references, entries with and without the bank's
// references), spreads them over statement files of every version (an
// entry may be in an intraday camt.054 and in the camt.053 too), and
// imports the files in any order, each any number of times: the ledger
// then holds the booked credits less the payouts the bank debited and did
// not return, every fee is one exception, and a repeated file changes
// nothing. Both engines, production mode.
func TestStatementImportProperty(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		env := apptest.NewOn(t, db, apptest.Production)
		a := env.App
		var n atomic.Int64
		rapid.Check(t, func(rt *rapid.T) {
			run := n.Add(1)
			acct := openEUR(t, a, fmt.Sprintf("prop-%d", run))
			const fund = 1_000_000
			importDoc(t, a, "fund", camttest.String(54, 8, "F", camttest.Stmt{IBAN: acct.IBAN,
				Entries: []camttest.Entry{{AcctSvcrRef: "FUND", Minor: fund, Credit: true}}}))
			var entries []camttest.Entry
			expected, fees := int64(fund), 0
			refKind := func(i int) (string, string) {
				switch rapid.IntRange(0, 2).Draw(rt, "refKind") {
				case 0:
					return fmt.Sprintf("ASR-%d-%d", run, i), ""
				case 1:
					return "", fmt.Sprintf("NTRY %d/%d", run, i)
				}
				return "", "" // identified by its digest
			}
			refs := rapid.SampledFrom([]string{"order 1", "Zahlung für Bestellung Nr. 42 <&>", "NOTPROVIDED", strings.Repeat("x", 140), "  spaced  "})
			for i := range rapid.IntRange(1, 6).Draw(rt, "credits") {
				asr, ntry := refKind(i)
				e := camttest.Entry{AcctSvcrRef: asr, NtryRef: ntry, Credit: true}
				if asr == "" && ntry == "" {
					// Identified by its digest: two identical such entries in two
					// files are one entry reported twice (docs/decisions.md, "Bank
					// statements in"), so two movements must differ somewhere
					// (here their booking dates) to be told apart across files.
					e.Booking = fmt.Sprintf("2026-10-%02d", 1+i)
				}
				parts := rapid.IntRange(1, 3).Draw(rt, "batch")
				for range parts {
					m := rapid.Int64Range(1, 50_000).Draw(rt, "amount")
					tx := camttest.Tx{Ustrd: []string{refs.Draw(rt, "ref")}}
					if parts > 1 {
						tx.Minor = m
					}
					e.Txs = append(e.Txs, tx)
					e.Minor += m
				}
				expected += e.Minor
				entries = append(entries, e)
			}
			for i := range rapid.IntRange(0, 3).Draw(rt, "payouts") {
				amount := rapid.Int64Range(1, 9_000).Draw(rt, "payout")
				id := newPayout(t, a, acct, amount)
				debited, returned := rapid.Bool().Draw(rt, "debited"), rapid.Bool().Draw(rt, "returned")
				if debited {
					entries = append(entries, camttest.Entry{AcctSvcrRef: fmt.Sprintf("DB-%d-%d", run, i), Minor: amount,
						Txs: []camttest.Tx{{EndToEndID: strings.ReplaceAll(id, "-", "")}}})
				}
				if returned {
					entries = append(entries, camttest.Entry{NtryRef: fmt.Sprintf("RT-%d-%d", run, i), Minor: amount, Credit: true,
						Txs: []camttest.Tx{{EndToEndID: id, Return: true, Reason: "AC04"}}})
				}
				if debited && !returned {
					expected -= amount
				}
			}
			for i := range rapid.IntRange(0, 2).Draw(rt, "fees") {
				asr, ntry := refKind(100 + i)
				entries = append(entries, camttest.Entry{AcctSvcrRef: asr, NtryRef: ntry, Minor: rapid.Int64Range(1, 500).Draw(rt, "fee"),
					Booking: fmt.Sprintf("2026-11-%02d", 10+i), Txs: []camttest.Tx{{Name: "Bank fee"}}})
				fees++
			}
			entries = append(entries, camttest.Entry{Minor: 777, Credit: true, Status: rapid.SampledFrom([]string{"PDNG", "INFO"}).Draw(rt, "status")})

			entries = rapid.Permutation(entries).Draw(rt, "entries") // a return may come before its debit
			nFiles := rapid.IntRange(1, 3).Draw(rt, "files")
			stmts := make([][]camttest.Entry, nFiles)
			for _, e := range entries {
				f := rapid.IntRange(0, nFiles-1).Draw(rt, "file")
				stmts[f] = append(stmts[f], e)
				// Also in another file (a camt.054 and the camt.053); never twice
				// in one file, where an identical entry is another movement.
				if nFiles > 1 && rapid.Bool().Draw(rt, "again") {
					f = (f + 1 + rapid.IntRange(0, nFiles-2).Draw(rt, "file2")) % nFiles
					stmts[f] = append(stmts[f], e)
				}
			}
			files := make([]string, nFiles)
			for f := range files {
				files[f] = camttest.String(rapid.SampledFrom([]int{53, 54}).Draw(rt, "kind"), rapid.IntRange(2, 8).Draw(rt, "version"),
					fmt.Sprintf("M-%d-%d", run, f), camttest.Stmt{IBAN: acct.IBAN, Entries: stmts[f]})
			}
			for _, f := range rapid.Permutation(rangeOf(nFiles)).Draw(rt, "order") {
				importDoc(t, a, "file", files[f])
			}
			if got := booked(t, a, acct.ID); got != expected {
				rt.Fatalf("ledger %d, want %d (booked credits less payouts debited and not returned)", got, expected)
			}
			for range rapid.IntRange(0, 3).Draw(rt, "repeats") {
				s := importDoc(t, a, "again", files[rapid.IntRange(0, nFiles-1).Draw(rt, "repeat")])
				if s.Matched+s.ManualCredits+s.OutgoingConfirmed+s.Returned+s.Exceptions != 0 || len(s.Rejected) != 0 {
					rt.Fatalf("a repeated file changed something: %+v", s)
				}
			}
			if got := booked(t, a, acct.ID); got != expected {
				rt.Fatalf("ledger %d after repeats, want %d", got, expected)
			}
			list, err := a.Statements().Exceptions(operatorContext(), statement.ExceptionOpen, statement.MaxListLimit)
			if err != nil {
				rt.Fatal(err)
			}
			got := 0
			for _, e := range list {
				if e.IBAN == acct.IBAN {
					got++
				}
			}
			if got != fees {
				rt.Fatalf("%d exceptions, want one per fee (%d)", got, fees)
			}
		})
		if err := a.VerifyBooks(operatorContext()); err != nil {
			t.Fatal(err)
		}
	})
}

func rangeOf(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
