package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/sandbox"
	"github.com/bankrail/bankrail/internal/store"
)

// booksWithMoney is a store with a EUR account that received 1000 and
// sent 400 (in flight): cached balance {600, 0, 400}.
func booksWithMoney(t *testing.T, db dbtest.DB) (*store.Store, ledger.Account) {
	t.Helper()
	s := open(t, db)
	ctx := context.Background()
	_, shop, _ := ledgerCustomers(t, s)
	a := testAccount(t, s, shop, "EUR", 1)
	for _, tx := range []ledger.Transaction{ledgerTx(a, ledger.Incoming, ledger.TxCompleted, 1000),
		ledgerTx(a, ledger.Outgoing, ledger.TxProcessing, 400)} {
		if err := record(ctx, s, tx); err != nil {
			t.Fatal(err)
		}
	}
	return s, a
}

// firstEntry is the oldest entry that posts to a.
func firstEntry(t *testing.T, s *store.Store, a ledger.Account) ledger.Entry {
	t.Helper()
	entries, err := s.Ledger().Entries(context.Background(), a.ID)
	if err != nil || len(entries) == 0 {
		t.Fatalf("entries %+v %v", entries, err)
	}
	return entries[0]
}

// verify verifies the books of s.
func verify(t *testing.T, s *store.Store) ledger.Report {
	t.Helper()
	r, err := ledger.VerifyBooks(context.Background(), s.Books(), t0)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// insertPosting writes one line of an entry behind the store's back (an
// INSERT: the triggers refuse only changes).
func insertPosting(t *testing.T, s *store.Store, entryID string, line int, txID, account string, bucket ledger.Bucket, amount int64) {
	t.Helper()
	if err := s.Exec(context.Background(), `INSERT INTO ledger_postings (entry_id, line, transaction_id, account_id, bucket, currency, amount, created_at)
		VALUES ($1, $2, $3, $4, $5, 'EUR', $6, 0)`, entryID, line, txID, account, string(bucket), amount); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyBooksBalanceWhenWrittenByTheStore: what the store wrote
// balances, counted.
func TestVerifyBooksBalanceWhenWrittenByTheStore(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s, _ := booksWithMoney(t, db)
		r := verify(t, s)
		if !r.Balanced() || r.Accounts != 1 || r.Entries != 2 || r.Postings != 4 || !r.CheckedAt.Equal(t0) {
			t.Fatalf("report %+v, want balanced: 1 account, 2 entries, 4 postings", r)
		}
	})
}

// TestVerifyBooksFindsADoctoredCachedBalance: a cached balance changed
// behind the ledger's back is a discrepancy with both numbers.
func TestVerifyBooksFindsADoctoredCachedBalance(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s, a := booksWithMoney(t, db)
		if err := s.Exec(context.Background(), `UPDATE ledger_accounts SET available = available + 7 WHERE id = $1`, a.ID); err != nil {
			t.Fatal(err)
		}
		r := verify(t, s)
		want := ledger.BalanceDiscrepancy{AccountID: a.ID, Bucket: ledger.Available, Cached: 607, Summed: 600}
		if r.Balanced() || r.BalanceDiscrepancies != 1 || len(r.Balances) != 1 || r.Balances[0] != want || r.EntryDiscrepancies != 0 {
			t.Fatalf("report %+v, want the one discrepancy %+v", r, want)
		}
	})
}

// TestVerifyBooksFindsAnUnbalancedEntry: a line added to an entry makes
// it sum to its amount; a line to an account that is not in the books
// is found too.
func TestVerifyBooksFindsAnUnbalancedEntry(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s, a := booksWithMoney(t, db)
		e := firstEntry(t, s, a)
		insertPosting(t, s, e.ID, 9, e.TransactionID, "", ledger.External, 5)
		ghost := uuid.NewString()
		insertPosting(t, s, e.ID, 10, e.TransactionID, ghost, ledger.Pending, -5)
		r := verify(t, s)
		// The two lines cancel out in the entry; add one that does not.
		if r.EntryDiscrepancies != 0 || r.BalanceDiscrepancies != 1 ||
			r.Balances[0] != (ledger.BalanceDiscrepancy{AccountID: ghost, Bucket: ledger.Pending, Summed: -5, NoAccount: true}) {
			t.Fatalf("report %+v, want the posting to an account not in the books", r)
		}
		insertPosting(t, s, e.ID, 11, e.TransactionID, "", ledger.External, 3)
		r = verify(t, s)
		want := ledger.EntryDiscrepancy{EntryID: e.ID, Currency: "EUR", Imbalance: 3}
		if r.EntryDiscrepancies != 1 || len(r.Imbalanced) != 1 || r.Imbalanced[0] != want {
			t.Fatalf("report %+v, want the entry discrepancy %+v", r, want)
		}
	})
}

// TestVerifyBooksFindsSumsThatOverflow: sums beyond an int64 are findings
// (never a wrapped number, never a failed query: SQLite's SUM fails on an
// overflow), and a balanced entry whose amounts are huge is not.
func TestVerifyBooksFindsSumsThatOverflow(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s, a := booksWithMoney(t, db)
		txID := firstEntry(t, s, a).TransactionID
		// Balanced, but its account's AVAILABLE postings sum past MaxInt64.
		huge := uuid.NewString()
		insertPosting(t, s, huge, 0, txID, a.ID, ledger.Available, math.MaxInt64)
		insertPosting(t, s, huge, 1, txID, a.ID, ledger.Available, math.MaxInt64)
		insertPosting(t, s, huge, 2, txID, "", ledger.External, -math.MaxInt64)
		insertPosting(t, s, huge, 3, txID, "", ledger.External, -math.MaxInt64)
		// Balanced, its parts crossing 2³² differently: not a finding.
		crossing := uuid.NewString()
		insertPosting(t, s, crossing, 0, txID, "", ledger.External, 1<<32)
		insertPosting(t, s, crossing, 1, txID, "", ledger.External, -(1<<32 - 1))
		insertPosting(t, s, crossing, 2, txID, "", ledger.External, -1)
		// Unbalanced by more than an int64 holds (below MinInt64).
		sunk := uuid.NewString()
		insertPosting(t, s, sunk, 0, txID, "", ledger.External, math.MinInt64)
		insertPosting(t, s, sunk, 1, txID, "", ledger.External, -1)
		r := verify(t, s)
		wantBalance := ledger.BalanceDiscrepancy{AccountID: a.ID, Bucket: ledger.Available, Cached: 600, Overflow: true}
		wantEntry := ledger.EntryDiscrepancy{EntryID: sunk, Currency: "EUR", Overflow: true}
		if len(r.Balances) != 1 || r.Balances[0] != wantBalance || len(r.Imbalanced) != 1 || r.Imbalanced[0] != wantEntry {
			t.Fatalf("report %+v\nwant %+v and %+v", r, wantBalance, wantEntry)
		}
	})
}

// TestPostingsRefuseUpdateAndDelete: the database itself refuses to change
// or remove a posting (on PostgreSQL also to truncate them), and the store
// turns the refusal into an INTERNAL domain error.
func TestPostingsRefuseUpdateAndDelete(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s, a := booksWithMoney(t, db)
		ctx := context.Background()
		statements := []string{`UPDATE ledger_postings SET amount = amount + 1`, `DELETE FROM ledger_postings`,
			`DELETE FROM ledger_postings WHERE account_id = '` + a.ID + `'`}
		if db.Engine == dbtest.Postgres {
			statements = append(statements, `TRUNCATE ledger_postings`)
		}
		for _, q := range statements {
			raw := s.Exec(ctx, q)
			if raw == nil {
				t.Fatalf("%s: the database let it through", q)
			}
			err := store.Translate(raw, "postings")
			var e *errs.Error
			if !errors.As(err, &e) || e.Code != errs.Internal || !errors.Is(err, ledger.ErrAppendOnly) {
				t.Fatalf("%s: %v, want INTERNAL with ledger.ErrAppendOnly", q, err)
			}
		}
		if r := verify(t, s); !r.Balanced() || r.Postings != 4 {
			t.Fatalf("the postings changed: %+v", r)
		}
	})
}

// doctor changes, in snapshot file, the value of column in the rows of
// table where it is from, to to.
func doctor(t *testing.T, file []byte, table, column string, from, to int64) []byte {
	t.Helper()
	lines := bytes.Split(file, []byte("\n"))
	col, changed := -1, 0
	for i, l := range lines {
		var head struct {
			Table   string   `json:"table"`
			Columns []string `json:"columns"`
		}
		if json.Unmarshal(l, &head) == nil && head.Table != "" {
			col = -1
			if head.Table == table {
				col = slices.Index(head.Columns, column)
			}
			continue
		}
		var row []any
		if col < 0 || json.Unmarshal(l, &row) != nil || row[col] != float64(from) {
			continue
		}
		row[col] = to
		lines[i], _ = json.Marshal(row)
		changed++
	}
	if changed == 0 {
		t.Fatalf("no row of %s has %s = %d", table, column, from)
	}
	return bytes.Join(lines, []byte("\n"))
}

// TestRestoreRefusesBooksThatDoNotBalance: a snapshot whose cached balance
// is not the sum of its postings is VALIDATION_FAILURE naming the
// discrepancy, and the restore is rolled back (the database as it was);
// the same snapshot undoctored restores. The restore empties the postings
// through the triggers' one deliberate unlock.
func TestRestoreRefusesBooksThatDoNotBalance(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s, a := booksWithMoney(t, db)
		ctx := identity.WithPrincipal(adminContext(), identity.Principal{Role: identity.RoleOperator}) // the instance's controls are the operator's
		svc := sandbox.NewService(s, clock.NewFake(t0), nil, true)
		var file bytes.Buffer
		if err := svc.SnapshotInstance(ctx, &file); err != nil {
			t.Fatal(err)
		}
		if err := record(ctx, s, ledgerTx(a, ledger.Incoming, ledger.TxCompleted, 50)); err != nil {
			t.Fatal(err)
		}
		available := func() int64 {
			t.Helper()
			got, err := s.Ledger().Account(ctx, a.CustomerID, a.ID)
			if err != nil {
				t.Fatal(err)
			}
			return got.Balance.Available
		}
		doctored := doctor(t, file.Bytes(), "ledger_accounts", "available", 600, 601)
		_, err := svc.RestoreInstance(ctx, bytes.NewReader(doctored))
		var e *errs.Error
		if !errors.As(err, &e) || e.Code != errs.ValidationFailure || len(e.Fields) != 1 ||
			!strings.Contains(e.Fields[0].Message, "account "+a.ID+" AVAILABLE: cached 601, postings sum to 600") {
			t.Fatalf("restore of unbalanced books: %v %+v", err, e)
		}
		if got := available(); got != 650 {
			t.Fatalf("available %d after a refused restore, want 650 (rolled back)", got)
		}
		if r := verify(t, s); !r.Balanced() || r.Entries != 3 {
			t.Fatalf("after a refused restore: %+v", r)
		}
		if _, err := svc.RestoreInstance(ctx, bytes.NewReader(file.Bytes())); err != nil {
			t.Fatal(err)
		}
		if r := verify(t, s); available() != 600 || !r.Balanced() || r.Entries != 2 {
			t.Fatalf("after the restore: available %d, %+v", available(), r)
		}
	})
}
