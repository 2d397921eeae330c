package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/store"
)

// viewReadsFixture is a parent customer, its child, a stranger, payments
// of the child (one on a Connect account with a refund) and the reads a
// batch is tested with.
type viewReadsFixture struct {
	s                       *store.Store
	parent, child, stranger string
	ids                     []string
	reads                   []viewRead
	missing                 string
}

// viewRead is one GetView and what it must answer.
type viewRead struct {
	viewer, id string
	found      bool
}

func newViewReadsFixture(t *testing.T, db dbtest.DB) viewReadsFixture {
	t.Helper()
	ctx := context.Background()
	f := viewReadsFixture{s: open(t, db), parent: "25000000-0000-4000-8000-000000000001",
		child: "25000000-0000-4000-8000-000000000002", stranger: "25000000-0000-4000-8000-000000000003",
		missing: "45000000-0000-4000-8000-0000000000ff"}
	for _, c := range []identity.Customer{{ID: f.parent, Name: "Parent", CreatedAt: t0},
		{ID: f.child, Name: "Child", ParentID: f.parent, CreatedAt: t0}, {ID: f.stranger, Name: "Stranger", CreatedAt: t0}} {
		if err := f.s.CreateCustomer(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	const account = "55000000-0000-4000-8000-000000000001"
	if err := f.s.Exec(ctx, `INSERT INTO ledger_accounts (id, customer_id, type, status, currency, iban, available, created_at)
		VALUES ($1, $2, 'CONNECT', 'ACTIVE', 'EUR', 'DE02120300000000202051', 730, 0)`, account, f.child); err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		p := testPayment(fmt.Sprintf("45000000-0000-4000-8000-%012d", i+1), f.child, fmt.Sprintf("VREAD%05d", i+1), t0.Add(time.Duration(i)*time.Second))
		if i == 0 {
			p.ConnectAccountID = account
		}
		if err := f.s.Payments().Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		f.ids = append(f.ids, p.ID)
	}
	if err := f.s.Exec(ctx, `INSERT INTO refund_totals (payment_id, refunded) VALUES ($1, 40)`, f.ids[0]); err != nil {
		t.Fatal(err)
	}
	moved := testPayment(f.ids[1], f.child, "VREAD00002", t0.Add(time.Second))
	moved.Status, moved.UpdatedAt = payment.StatusBankRedirect, t0.Add(time.Minute)
	moved.History = append(moved.History, payment.StatusUpdate{Status: payment.StatusBankRedirect, CreatedAt: moved.UpdatedAt})
	if err := f.s.Payments().Move(ctx, payment.Change{Payment: moved, From: payment.StatusNew, Stored: 1}); err != nil {
		t.Fatal(err)
	}
	for _, id := range f.ids {
		f.reads = append(f.reads, viewRead{f.child, id, true}, viewRead{f.parent, id, true})
	}
	f.reads = append(f.reads,
		viewRead{f.child, f.ids[0], true},     // the same read twice in one batch
		viewRead{f.stranger, f.ids[2], false}, // another customer's payment
		viewRead{f.child, f.missing, false})
	return f
}

// check compares what a read answered with what the payment is, read
// alone when nothing else is on its way.
func (f viewReadsFixture) check(t *testing.T, r viewRead, got payment.ListItem, err error) {
	t.Helper()
	if !r.found {
		if !errs.Is(err, errs.NotFound) {
			t.Errorf("%s reads %s: %v, want RESOURCE_NOT_FOUND", r.viewer, r.id, err)
		}
		return
	}
	if err != nil {
		t.Errorf("%s reads %s: %v", r.viewer, r.id, err)
		return
	}
	whole, err := f.s.Payments().GetByID(context.Background(), r.id)
	if err != nil {
		t.Fatal(err)
	}
	banks := bank.Default()
	if g, w := inputsOf(got.Payment, banks), inputsOf(whole, banks); g != w {
		t.Errorf("%s reads %s:\n got %+v\nwant %+v", r.viewer, r.id, g, w)
	}
	wantRefunded, wantAvailable := int64(0), int64(0)
	if r.id == f.ids[0] {
		wantRefunded, wantAvailable = 40, 730
	}
	if got.Refunded != wantRefunded || got.Available != wantAvailable {
		t.Errorf("%s reads %s: refunded %d, available %d; want %d, %d", r.viewer, r.id, got.Refunded, got.Available, wantRefunded, wantAvailable)
	}
}

// TestViewReadsCoalesce: on PostgreSQL, the reads of details records that
// come while every slot is taken (held here behind a lock on the
// payments table) gather and go as one statement once a slot is free;
// each gets exactly what a read of its own gives (its payment, with its
// history and refund amounts; RESOURCE_NOT_FOUND for a payment missing or
// not the viewer's; the same read twice, twice); a read whose context ends
// while it waits returns at once, and the batch serves the others. On
// SQLite every read goes alone.
func TestViewReadsCoalesce(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		f := newViewReadsFixture(t, db)
		ctx := context.Background()
		if db.Engine == dbtest.SQLite {
			concurrentViewReads(t, f)
			if _, sent, _, _ := f.s.ViewReads(); sent != 0 {
				t.Errorf("SQLite sent %d batches; its reads go alone", sent)
			}
			return
		}
		write, _ := f.s.Pools()
		hold, err := write.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = hold.Rollback() }()
		if _, err := hold.ExecContext(ctx, `LOCK TABLE payments IN ACCESS EXCLUSIVE MODE`); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		// Reads take every slot and wait for the lock.
		for _, id := range f.ids[:store.ViewReadsInFlight] {
			wg.Go(func() {
				it, err := f.s.Payments().GetView(ctx, f.child, id)
				f.check(t, viewRead{f.child, id, true}, it, err)
			})
		}
		waitFor(t, func() bool { n, _, _, _ := f.s.ViewReads(); return n == store.ViewReadsInFlight }, "every slot taken")
		_, sent0, carried0, _ := f.s.ViewReads()
		results := make([]payment.ListItem, len(f.reads))
		errors_ := make([]error, len(f.reads))
		for i, r := range f.reads {
			wg.Go(func() { results[i], errors_[i] = f.s.Payments().GetView(ctx, r.viewer, r.id) })
			waitFor(t, func() bool { _, _, _, w := f.s.ViewReads(); return w == i+1 }, "the read gathered")
		}
		// A read that gives up while it waits returns at once.
		gone, cancel := context.WithCancel(ctx)
		left := make(chan error, 1)
		go func() { _, err := f.s.Payments().GetView(gone, f.child, f.ids[3]); left <- err }()
		waitFor(t, func() bool { _, _, _, w := f.s.ViewReads(); return w == len(f.reads)+1 }, "the read that gives up gathered")
		cancel()
		select {
		case err := <-left:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("a cancelled read returned %v, want context.Canceled", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a cancelled read still waits for its batch")
		}
		if err := hold.Commit(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		for i, r := range f.reads {
			f.check(t, r, results[i], errors_[i])
		}
		_, sent, carried, waiting := f.s.ViewReads()
		if sent != sent0+1 || carried != carried0+int64(len(f.reads))+1 || waiting != 0 {
			t.Errorf("%d batches carrying %d reads (%d left waiting); want 1 carrying %d", sent-sent0, carried-carried0, waiting, len(f.reads)+1)
		}
		concurrentViewReads(t, f) // and, unhindered, reads under load answer right
	})
}

// concurrentViewReads makes every read of f many times at once and checks
// each answer.
func concurrentViewReads(t *testing.T, f viewReadsFixture) {
	t.Helper()
	var wg sync.WaitGroup
	for range 8 {
		for _, r := range f.reads {
			wg.Go(func() {
				it, err := f.s.Payments().GetView(context.Background(), r.viewer, r.id)
				f.check(t, r, it, err)
			})
		}
	}
	wg.Wait()
}

// TestViewReadsBatchFails: a batch whose statement fails answers each of
// its reads with the error (not RESOURCE_NOT_FOUND, not a payment), and
// the reads after it go on.
func TestViewReadsBatchFails(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		if db.Engine == dbtest.SQLite {
			t.Skip("SQLite reads alone: no batch")
		}
		f := newViewReadsFixture(t, db)
		ctx := context.Background()
		write, _ := f.s.Pools()
		hold, err := write.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = hold.Rollback() }()
		// The lock holds the reads; the table is gone when it is released.
		if _, err := hold.ExecContext(ctx, `LOCK TABLE payments IN ACCESS EXCLUSIVE MODE`); err != nil {
			t.Fatal(err)
		}
		const n = store.ViewReadsInFlight + 5
		errs_ := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { _, errs_[i] = f.s.Payments().GetView(ctx, f.child, f.ids[i%len(f.ids)]) })
			waitFor(t, func() bool { inFlight, _, _, w := f.s.ViewReads(); return inFlight+w == i+1 }, "the read on its way or gathered")
		}
		if _, err := hold.ExecContext(ctx, `ALTER TABLE payments RENAME TO payments_gone`); err != nil {
			t.Fatal(err)
		}
		if err := hold.Commit(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		for i, err := range errs_ {
			if err == nil || errs.Is(err, errs.NotFound) {
				t.Errorf("read %d: %v; want the statement's error", i, err)
			}
		}
		if _, sent, _, _ := f.s.ViewReads(); sent != 1 {
			t.Errorf("%d batches sent, want 1", sent)
		}
		if err := f.s.Exec(ctx, `ALTER TABLE payments_gone RENAME TO payments`); err != nil {
			t.Fatal(err)
		}
		concurrentViewReads(t, f)
	})
}
