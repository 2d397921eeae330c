package store_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/iso"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/money"
	"github.com/bankrail/bankrail/internal/paging"
	"github.com/bankrail/bankrail/internal/store"
)

// ledgerCustomers creates a PSP, its merchant and a stranger.
func ledgerCustomers(t *testing.T, s *store.Store) (psp, shop, other string) {
	t.Helper()
	psp, shop, other = "70000000-0000-4000-8000-000000000001", "70000000-0000-4000-8000-000000000002", "70000000-0000-4000-8000-000000000003"
	for _, c := range []identity.Customer{{ID: psp, Name: "PSP", CreatedAt: t0}, {ID: shop, Name: "Shop", ParentID: psp, CreatedAt: t0},
		{ID: other, Name: "Other", CreatedAt: t0}} {
		if err := s.CreateCustomer(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	return psp, shop, other
}

func testAccount(t *testing.T, s *store.Store, customer, currency string, n int) ledger.Account {
	t.Helper()
	a := ledger.Account{ID: uuid.NewString(), CustomerID: customer, Type: ledger.Connected, Status: ledger.AccountActive,
		Currency: currency, IBAN: iso.MakeIBAN("DE", fmt.Sprintf("%018d", n)), Nickname: "main", Country: "DE",
		CreatedAt: t0.Add(time.Duration(n) * time.Second)}
	if err := s.Ledger().CreateAccount(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	return a
}

func ledgerTx(a ledger.Account, op ledger.Operation, st ledger.TxStatus, amount int64) ledger.Transaction {
	return ledger.Transaction{ID: uuid.NewString(), AccountID: a.ID, CustomerID: a.CustomerID, Type: ledger.TypeManualCredit,
		Operation: op, Status: st, Amount: money.Must(money.New(amount, a.Currency)), CreatedAt: t0, UpdatedAt: t0}
}

// record opens t with its first entry in a unit of work of its own.
func record(ctx context.Context, s *store.Store, t ledger.Transaction) error {
	e, err := ledger.Open(t, uuid.NewString())
	if err != nil {
		return err
	}
	return s.InTx(ctx, func(tx *store.Tx) error { return tx.Ledger().Record(ctx, t, e) })
}

// checkCache compares the cached balance of a with the sum of its postings.
func checkCache(t *testing.T, s *store.Store, a ledger.Account) ledger.Balance {
	t.Helper()
	got, err := s.Ledger().Account(context.Background(), a.CustomerID, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := s.Ledger().Entries(context.Background(), a.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := ledger.Validate(e); err != nil {
			t.Fatalf("stored entry: %v", err)
		}
	}
	if want := ledger.Replay(entries)[a.ID]; got.Balance != want {
		t.Fatalf("account %s cached balance %+v, postings sum to %+v", a.ID, got.Balance, want)
	}
	return got.Balance
}

func TestLedgerAccounts(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		psp, shop, other := ledgerCustomers(t, s)
		eur := testAccount(t, s, shop, "EUR", 1)
		gbp := testAccount(t, s, shop, "GBP", 2)
		testAccount(t, s, other, "EUR", 3)
		if got, err := s.Ledger().Account(ctx, psp, eur.ID); err != nil || got.IBAN != eur.IBAN || !got.CreatedAt.Equal(eur.CreatedAt) {
			t.Fatalf("the PSP reads its merchant's account: %+v %v", got, err)
		}
		if _, err := s.Ledger().Account(ctx, other, eur.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("a stranger's read: %v", err)
		}
		if got, err := s.Ledger().AccountByIBAN(ctx, gbp.IBAN); err != nil || got.ID != gbp.ID {
			t.Fatalf("by IBAN: %+v %v", got, err)
		}
		if got, err := s.Ledger().ConnectAccount(ctx, shop, "GBP"); err != nil || got.ID != gbp.ID {
			t.Fatalf("Connect account: %+v %v", got, err)
		}
		if _, err := s.Ledger().ConnectAccount(ctx, shop, "USD"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("no USD account: %v", err)
		}
		dup := eur
		dup.ID = uuid.NewString()
		if err := s.Ledger().CreateAccount(ctx, dup); !errs.Is(err, errs.Conflict) {
			t.Fatalf("a taken IBAN: %v", err)
		}
		list, total, err := paging.Unpack(s.Ledger().ListAccounts(ctx, psp, ledger.AccountFilter{Page: 1, Limit: 1}))
		if err != nil || total != 2 || len(list) != 1 || list[0].ID != gbp.ID {
			t.Fatalf("PSP's first page: %d %+v %v", total, list, err)
		}
		list, total, err = paging.Unpack(s.Ledger().ListAccounts(ctx, psp, ledger.AccountFilter{Currency: "EUR", Page: 1, Limit: 10}))
		if err != nil || total != 1 || list[0].ID != eur.ID {
			t.Fatalf("PSP's EUR accounts: %d %+v %v", total, list, err)
		}
	})
}

func TestLedgerTransactionsAndPostings(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		psp, shop, other := ledgerCustomers(t, s)
		a := testAccount(t, s, shop, "EUR", 1)
		in := ledgerTx(a, ledger.Incoming, ledger.TxProcessing, 1000)
		in.ExternalID, in.PaymentID, in.Reference = "ext-1", "pay-1", "REF1"
		in.Counterparty = ledger.Counterparty{Name: "Payer", IBAN: "DE89370400440532013000"}
		if err := record(ctx, s, in); err != nil {
			t.Fatal(err)
		}
		if b := checkCache(t, s, a); b != (ledger.Balance{Pending: 1000}) {
			t.Fatalf("after announce %+v", b)
		}
		// Pending funds cannot be spent; nothing is written.
		if err := record(ctx, s, ledgerTx(a, ledger.Outgoing, ledger.TxProcessing, 1)); !errors.Is(err, ledger.ErrInsufficientFunds) {
			t.Fatalf("hold on pending funds: %v", err)
		}
		done, e, err := ledger.Settle(in, ledger.TxCompleted, uuid.NewString(), t0.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Ledger().Move(ctx, done, ledger.TxProcessing, e); err != nil {
			t.Fatal(err)
		}
		if err := s.Ledger().Move(ctx, done, ledger.TxProcessing, e); !errs.Is(err, errs.Conflict) {
			t.Fatalf("a second settle: %v", err)
		}
		if b := checkCache(t, s, a); b != (ledger.Balance{Available: 1000}) {
			t.Fatalf("after completion %+v", b)
		}
		// The same external id for the same account is taken once.
		again := ledgerTx(a, ledger.Incoming, ledger.TxCompleted, 5)
		again.ExternalID = "ext-1"
		if err := record(ctx, s, again); !errs.Is(err, errs.Conflict) {
			t.Fatalf("a repeated external id: %v", err)
		}
		got, err := s.Ledger().TransactionByExternalID(ctx, a.ID, "ext-1")
		if err != nil || got.ID != in.ID || got.Status != ledger.TxCompleted || got.Counterparty != in.Counterparty ||
			got.Amount != in.Amount || got.PaymentID != "pay-1" || !got.UpdatedAt.Equal(t0.Add(time.Minute)) {
			t.Fatalf("by external id: %+v %v", got, err)
		}
		if _, err := s.Ledger().Transaction(ctx, psp, in.ID); err != nil {
			t.Fatalf("the PSP reads it: %v", err)
		}
		if _, err := s.Ledger().Transaction(ctx, other, in.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("a stranger reads it: %v", err)
		}
		if _, _, err := paging.Unpack(s.Ledger().ListTransactions(ctx, other, a.ID, ledger.TxFilter{Page: 1, Limit: 10})); !errs.Is(err, errs.NotFound) {
			t.Fatalf("a stranger lists it: %v", err)
		}
		out := ledgerTx(a, ledger.Outgoing, ledger.TxProcessing, 400)
		out.Type, out.CreatedAt = ledger.TypeRefund, t0.Add(time.Hour)
		if err := record(ctx, s, out); err != nil {
			t.Fatal(err)
		}
		list, total, err := paging.Unpack(s.Ledger().ListTransactions(ctx, psp, a.ID, ledger.TxFilter{Page: 1, Limit: 10}))
		if err != nil || total != 2 || list[0].ID != out.ID || list[1].ID != in.ID {
			t.Fatalf("list: %d %+v %v", total, list, err)
		}
		list, total, err = paging.Unpack(s.Ledger().ListTransactions(ctx, psp, a.ID, ledger.TxFilter{Type: ledger.TypeRefund, Status: ledger.TxProcessing,
			CreatedFrom: new(t0.Add(time.Minute)), Page: 1, Limit: 10}))
		if err != nil || total != 1 || list[0].ID != out.ID {
			t.Fatalf("filtered list: %d %+v %v", total, list, err)
		}
		if b := checkCache(t, s, a); b != (ledger.Balance{Available: 600, Held: 400}) {
			t.Fatalf("after hold %+v", b)
		}
	})
}

// The store applies the Book's rules: a random sequence of movements on
// three accounts leaves each cached balance equal to the Book's and to
// the sum of its postings, and the store refuses exactly what the Book
// refuses.
func TestLedgerStoreFollowsTheBook(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		_, shop, _ := ledgerCustomers(t, s)
		accts := []ledger.Account{testAccount(t, s, shop, "EUR", 1), testAccount(t, s, shop, "EUR", 2), testAccount(t, s, shop, "JPY", 3)}
		book := ledger.NewBook()
		for _, a := range accts {
			book.Open(a.ID, a.Currency)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		var open []ledger.Transaction
		for i := range 150 {
			a := accts[rng.IntN(len(accts))]
			var tx ledger.Transaction
			var e ledger.Entry
			var err error
			from := ledger.TxStatus("")
			switch k := rng.IntN(5); {
			case k == 4 && len(open) > 0:
				j := rng.IntN(len(open))
				from = ledger.TxProcessing
				to := []ledger.TxStatus{ledger.TxCompleted, ledger.TxFailed, ledger.TxRejected}[rng.IntN(3)]
				tx, e, err = ledger.Settle(open[j], to, uuid.NewString(), t0)
				open = append(open[:j], open[j+1:]...)
			default:
				op := []ledger.Operation{ledger.Incoming, ledger.Outgoing}[rng.IntN(2)]
				st := []ledger.TxStatus{ledger.TxCompleted, ledger.TxProcessing}[rng.IntN(2)]
				tx = ledgerTx(a, op, st, 1+rng.Int64N(500))
				e, err = ledger.Open(tx, uuid.NewString())
			}
			if err != nil {
				t.Fatal(err)
			}
			bookErr := book.Apply(e)
			var storeErr error
			if from == "" {
				storeErr = s.Ledger().Record(ctx, tx, e)
			} else {
				storeErr = s.Ledger().Move(ctx, tx, from, e)
			}
			if (bookErr == nil) != (storeErr == nil) {
				t.Fatalf("step %d: book %v, store %v", i, bookErr, storeErr)
			}
			if storeErr == nil && from == "" && tx.Status == ledger.TxProcessing {
				open = append(open, tx)
			}
		}
		for _, a := range accts {
			if got := checkCache(t, s, a); got != book.Balance(a.ID) {
				t.Fatalf("account %s: store %+v, book %+v", a.ID, got, book.Balance(a.ID))
			}
		}
	})
}

// Concurrent debits never take an account below zero: 50 debits of 30
// against 1,000 leave exactly 33 taken and 10 available, on both engines,
// and on PostgreSQL across two stores (two instances) on one database.
func TestLedgerConcurrentDebits(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		stores := []*store.Store{s}
		if db.Engine == dbtest.Postgres {
			stores = append(stores, open(t, db))
		}
		ctx := context.Background()
		_, shop, _ := ledgerCustomers(t, s)
		a := testAccount(t, s, shop, "EUR", 1)
		if err := record(ctx, s, ledgerTx(a, ledger.Incoming, ledger.TxCompleted, 1000)); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok, refused, holds := 0, 0, 0
		for i := range 50 {
			wg.Go(func() {
				op := []ledger.TxStatus{ledger.TxCompleted, ledger.TxProcessing}[i%2] // debits and holds
				err := record(ctx, stores[i%len(stores)], ledgerTx(a, ledger.Outgoing, op, 30))
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok++
					if op == ledger.TxProcessing {
						holds++
					}
				case errors.Is(err, ledger.ErrInsufficientFunds):
					refused++
				default:
					t.Errorf("debit: %v", err)
				}
			})
		}
		wg.Wait()
		if ok != 33 || refused != 17 {
			t.Fatalf("%d debits taken, %d refused; want 33 and 17", ok, refused)
		}
		b := checkCache(t, s, a)
		if b.Available != 10 || b.Held != int64(holds)*30 || b.Pending != 0 {
			t.Fatalf("balance %+v", b)
		}
	})
}
