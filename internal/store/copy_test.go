package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/store"
)

// RecordAll of a batch (by COPY on PostgreSQL: more rows than
// copyMinRows, 32) writes every transaction and posting and moves the
// balance once; one that fails (an external id the account has already,
// met by the copy of the transactions) fails the unit of work with
// CONFLICT and leaves nothing of it written, the unit's write before the
// copy included. Both engines.
func TestRecordAllWritesAllOrNothing(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		_, shop, _ := ledgerCustomers(t, s)
		a := testAccount(t, s, shop, "EUR", 1)
		batch := func(prefix string, n int) ([]ledger.Transaction, []ledger.Entry, int64) {
			var ts []ledger.Transaction
			var es []ledger.Entry
			var sum int64
			for i := range n {
				tx := ledgerTx(a, ledger.Incoming, ledger.TxCompleted, int64(100+i))
				tx.ExternalID = fmt.Sprintf("%s-%04d", prefix, i)
				e, err := ledger.Open(tx, uuid.NewString())
				if err != nil {
					t.Fatal(err)
				}
				ts, es, sum = append(ts, tx), append(es, e), sum+int64(100+i)
			}
			return ts, es, sum
		}
		ts, es, sum := batch("OK", 50)
		if err := s.InTx(ctx, func(tx *store.Tx) error { return tx.Ledger().RecordAll(ctx, ts, es) }); err != nil {
			t.Fatal(err)
		}
		for _, want := range ts {
			got, err := s.Ledger().TransactionByExternalID(ctx, a.ID, want.ExternalID)
			if err != nil || got.ID != want.ID || got.Amount != want.Amount {
				t.Fatalf("transaction %s: %+v, %v; want %+v", want.ExternalID, got, err, want)
			}
		}
		bal := checkCache(t, s, a)
		if bal.Available != sum {
			t.Fatalf("available %d, want %d", bal.Available, sum)
		}

		more, mes, _ := batch("NEW", 50)
		more[49].ExternalID = "OK-0007" // taken
		lone := ledgerTx(a, ledger.Incoming, ledger.TxCompleted, 5)
		lone.ExternalID = "LONE"
		le, err := ledger.Open(lone, uuid.NewString())
		if err != nil {
			t.Fatal(err)
		}
		err = s.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.Ledger().Record(ctx, lone, le); err != nil {
				return err
			}
			return tx.Ledger().RecordAll(ctx, more, mes)
		})
		if !errs.Is(err, errs.Conflict) {
			t.Fatalf("RecordAll with a taken external id: %v, want CONFLICT", err)
		}
		for _, ext := range []string{"LONE", "NEW-0000", "NEW-0048"} {
			if _, err := s.Ledger().TransactionByExternalID(ctx, a.ID, ext); !errs.Is(err, errs.NotFound) {
				t.Fatalf("transaction %s after the failed unit: %v, want RESOURCE_NOT_FOUND", ext, err)
			}
		}
		if got := checkCache(t, s, a); got != bal {
			t.Fatalf("balance after the failed unit %+v, want %+v", got, bal)
		}
	})
}

// A batch of notifications (by COPY on PostgreSQL) is numbered after the
// ones stored of each payment, in its order, every message once.
func TestNotificationBatchByCopy(t *testing.T) {
	eachNotifyStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		if _, err := s.EnqueueNotifications(ctx, t0, msg("C1", `{"n":0}`)); err != nil {
			t.Fatal(err)
		}
		var msgs []notify.Message
		want := map[string][]string{"C1": {`{"n":0}`}}
		for i := range 60 {
			key := fmt.Sprintf("C%d", 1+i%3)
			body := fmt.Sprintf(`{"n":%d}`, i+1)
			msgs, want[key] = append(msgs, msg(key, body)), append(want[key], body)
		}
		made, err := s.EnqueueNotifications(ctx, t0, msgs...)
		if err != nil || len(made) != len(msgs) {
			t.Fatalf("enqueued %d of %d: %v", len(made), len(msgs), err)
		}
		write, _ := s.Pools()
		rows, err := write.QueryContext(ctx, `SELECT ordering_key, seq, body FROM notifications ORDER BY ordering_key, seq`)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = rows.Close() }() // read only
		got := map[string][]string{}
		for rows.Next() {
			var key, body string
			var seq int
			if err := rows.Scan(&key, &seq, &body); err != nil {
				t.Fatal(err)
			}
			if seq != len(got[key])+1 {
				t.Fatalf("%s: seq %d after %d", key, seq, len(got[key]))
			}
			got[key] = append(got[key], body)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("notifications %v, want %v", got, want)
		}
	})
}
