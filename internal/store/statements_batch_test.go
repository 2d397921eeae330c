package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/payment"
)

// The statement import's two look-ups of a batch (Booked, Expected: an
// IN list on SQLite, one index look-up per value on PostgreSQL) read
// exactly what they name: the account's transactions of those external
// ids (a repeated id once, another account's never), and its payments in
// the statuses whose unique reference or id is one of the references,
// over more values than one statement takes (batchRows, 1000).
func TestStatementBatchLookUps(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		_, shop, _ := ledgerCustomers(t, s)
		a, b := testAccount(t, s, shop, "EUR", 1), testAccount(t, s, shop, "EUR", 2)

		var want []string
		for i := range 12 {
			tx := ledgerTx(a, ledger.Incoming, ledger.TxCompleted, 100)
			tx.ExternalID = fmt.Sprintf("EXT-%04d", i)
			if err := record(ctx, s, tx); err != nil {
				t.Fatal(err)
			}
			if i%3 != 0 {
				want = append(want, tx.ID)
			}
		}
		other := ledgerTx(b, ledger.Incoming, ledger.TxCompleted, 100) // the same external id on another account
		other.ExternalID = "EXT-0001"
		if err := record(ctx, s, other); err != nil {
			t.Fatal(err)
		}
		ext := []string{"EXT-0001"} // named twice
		for i := range 1200 {
			if i < 12 && i%3 == 0 {
				continue
			}
			ext = append(ext, fmt.Sprintf("EXT-%04d", i))
		}
		txs, err := s.Statements().Booked(ctx, a.ID, ext)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tx := range txs {
			got = append(got, tx.ID)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("Booked read %d transactions %v, want %d %v", len(got), got, len(want), want)
		}

		// Payments: expected on a (by reference or by id), in a status
		// of the list or not, and one on b with a reference asked for.
		statuses := payment.PayinStatuses()
		var refs []string
		want = want[:0]
		for i := range 10 {
			p := testPayment(fmt.Sprintf("46000000-0000-4000-8000-%012d", i+1), shop, fmt.Sprintf("SBLU%05d", i+1), t0)
			p.ConnectAccountID, p.Status = a.ID, payment.StatusNotReceived
			switch i {
			case 7:
				p.Status = payment.StatusReceived
			case 8:
				p.ConnectAccountID = b.ID
			}
			if err := s.Payments().Create(ctx, p); err != nil {
				t.Fatal(err)
			}
			if i%2 == 0 {
				refs = append(refs, p.UniqueReference)
			} else {
				refs = append(refs, p.ID)
			}
			if i != 7 && i != 8 && i != 9 {
				want = append(want, p.ID)
			}
		}
		for i := range 1100 {
			refs = append(refs, fmt.Sprintf("unknown %d", i))
		}
		ps, err := s.Statements().Expected(ctx, a.ID, refs[:9], statuses) // payment 9 not asked for
		if err != nil {
			t.Fatal(err)
		}
		more, err := s.Statements().Expected(ctx, a.ID, append(refs[:9:9], refs[10:]...), statuses)
		if err != nil {
			t.Fatal(err)
		}
		for _, read := range [][]payment.Payment{ps, more} {
			got = got[:0]
			for _, p := range read {
				got = append(got, p.ID)
				if len(p.History) != 1 {
					t.Fatalf("payment %s read with %d moves, want 1", p.ID, len(p.History))
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("Expected read %v, want %v", got, want)
			}
		}
	})
}
