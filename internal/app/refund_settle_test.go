package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/job"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/refund"
	"github.com/bankrail/bankrail/internal/seed"
	"github.com/bankrail/bankrail/internal/transfer"
	"github.com/bankrail/bankrail/notification"
)

// Two merchants of two tenants (two top-level customers, two sandbox
// clocks), each with a EUR Connect account.
const (
	settleShopA    = "51000000-0000-4000-8000-00000000000a"
	settleShopB    = "51000000-0000-4000-8000-00000000000b"
	settleAccountA = "51000000-0000-4000-8000-0000000000ea"
	settleAccountB = "51000000-0000-4000-8000-0000000000eb"
)

var settleEpoch = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

// settleApp opens bankrail on db in mode with the two merchants. Its
// workers are not started: the test drives the job worker (RunDueJobs) and
// the fake base clock.
func settleApp(t *testing.T, db dbtest.DB, mode config.Mode, base clock.Clock, opts app.Options) *app.App {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir, cfg.DatabaseURL, cfg.Mode = db.DataDir, db.DatabaseURL, mode
	if db.Engine == dbtest.Postgres {
		cfg.DataDir = t.TempDir()
	}
	hp := identity.HashParams{Time: 1, Memory: 1024, Threads: 1}
	f := seed.File{}
	for _, c := range []struct{ id, account, client string }{{settleShopA, settleAccountA, "settle-a"}, {settleShopB, settleAccountB, "settle-b"}} {
		f.Customers = append(f.Customers, seed.Customer{ID: c.id, Name: "Shop " + c.client,
			Applications: []seed.Application{{ClientID: c.client, ClientSecret: c.client + "-secret", NotificationSecret: c.client + "-notification"}},
			Accounts:     []seed.Account{{ID: c.account, Currency: "EUR"}}})
	}
	opts.BaseClock, opts.HashParams, opts.Seed = base, &hp, &f
	// Tests here run one database in both modes on purpose (the sandbox's
	// mock bank receives what production then refunds): it is converted
	// first, as an operator would (bankrail migrate --convert-to).
	conv, err := app.Admin(adminContext(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	_, err = conv.ConvertMode(adminContext(), mode)
	if cerr := conv.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(adminContext(), cfg, slog.New(slog.DiscardHandler), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}

// receivedPayment creates a payment of amount expected on customer's
// account, completed by the mock bank, whose funds arrive at once: RECEIVED.
func receivedPayment(t *testing.T, a *app.App, customer, client string, amount int64) string {
	t.Helper()
	completed, _ := payment.ParseOutcome("COMPLETED")
	req := payment.CreateRequest{Currency: "EUR", Amount: &amount, PaymentSystem: bank.OpenBankingEU,
		PaymentReference: "settle", OpenBankingEU: &payment.OpenBankingEU{Type: payment.TypeGoods}}
	resp, err := a.Payments().Create(adminContext(), payment.CreateInput{Creator: payment.Creator{CustomerID: customer,
		ClientID: client, UserID: "u"}, Channel: payment.ChannelHosted, Operation: "settle", Request: req, Scenario: completed},
		func(payment.Payment) ([]byte, error) { return []byte("{}"), nil })
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.Payments().Get(adminContext(), customer, resp.ResourceID)
	if err != nil || p.Status != payment.StatusReceived {
		t.Fatalf("payment %+v %v, want RECEIVED", p.Status, err)
	}
	return resp.ResourceID
}

// requestRefund refunds amount of paymentID and returns the PENDING refund.
func requestRefund(t *testing.T, a *app.App, customer, paymentID string, amount int64, reject bool) refund.Refund {
	t.Helper()
	resp, err := a.Refunds().Request(adminContext(), refund.Input{ViewerCustomerID: customer, PaymentID: paymentID,
		Amount: &amount, ExternalReference: "settle-test", Reject: reject}, func(f refund.Refund) ([]byte, error) { return json.Marshal(f) })
	if err != nil {
		t.Fatal(err)
	}
	var f refund.Refund
	if err := json.Unmarshal(resp.Body, &f); err != nil || f.Status != refund.Pending {
		t.Fatalf("refund %s %v, want PENDING", resp.Body, err)
	}
	return f
}

func refundStatus(t *testing.T, a *app.App, f refund.Refund) refund.Refund {
	t.Helper()
	got, err := a.Refunds().Get(adminContext(), f.CustomerID, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func runJobs(t *testing.T, a *app.App) int {
	t.Helper()
	n, err := a.RunDueJobs(adminContext())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// settlement is what the books and the outbox hold of refund f: the
// entries of its ledger transaction, its notifications (by type) and the
// account's balance.
type settlement struct {
	entries int
	notes   map[string]int
	balance ledger.Balance
}

func settlementOf(t *testing.T, a *app.App, f refund.Refund) settlement {
	t.Helper()
	ctx := adminContext()
	entries, err := a.Store().Ledger().Entries(ctx, f.AccountID)
	if err != nil {
		t.Fatal(err)
	}
	s := settlement{notes: map[string]int{}}
	for _, e := range entries {
		if e.TransactionID == f.TransactionID {
			s.entries++
		}
	}
	page, err := a.Store().ListNotifications(ctx, f.CustomerID, notify.Filter{PaymentID: f.PaymentID, Page: 1, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range page.Items {
		var b notification.Refund
		if json.Unmarshal(n.Body, &b) == nil && b.Refund == f.ID {
			s.notes[n.Type]++
		}
	}
	acct, err := a.Store().Ledger().Account(ctx, f.CustomerID, f.AccountID)
	if err != nil {
		t.Fatal(err)
	}
	s.balance = acct.Balance
	if sum := ledger.Replay(entries)[f.AccountID]; sum != acct.Balance {
		t.Fatalf("cached balance %+v, postings %+v", acct.Balance, sum)
	}
	return s
}

// A refund's settlement follows the clock of its tenant: the mock bank
// answers 10 minutes after the request on that clock. Until then the job
// asks again (PENDING, the money held); advancing one tenant's sandbox
// clock settles its refund and not the other tenant's.
func TestRefundSettlesOnTheTenantClock(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		base := clock.NewFake(settleEpoch)
		a := settleApp(t, db, config.Sandbox, base, app.Options{RefundAnswerAfter: 10 * time.Minute})
		ctx := adminContext()
		fa := requestRefund(t, a, settleShopA, receivedPayment(t, a, settleShopA, "settle-a", 1000), 400, false)
		fb := requestRefund(t, a, settleShopB, receivedPayment(t, a, settleShopB, "settle-b", 1000), 400, true)
		if n := runJobs(t, a); n < 2 {
			t.Fatalf("%d jobs ran, want the two settlements", n)
		}
		for _, f := range []refund.Refund{fa, fb} {
			if got := refundStatus(t, a, f); got.Status != refund.Pending {
				t.Fatalf("before the bank's answer: %s", got.Status)
			}
			if s := settlementOf(t, a, f); s.entries != 1 || len(s.notes) != 0 || s.balance.Available != 600 || s.balance.Held != 400 {
				t.Fatalf("before the bank's answer: %+v", s)
			}
		}
		if n := runJobs(t, a); n != 0 {
			t.Fatalf("%d jobs ran before the answer is due", n)
		}

		if _, err := a.Clock().(*clock.Tenants).Advance(ctx, settleShopA, 10*time.Minute); err != nil {
			t.Fatal(err)
		}
		runJobs(t, a)
		got := refundStatus(t, a, fa)
		if got.Status != refund.Confirmed || !got.UpdatedAt.Equal(settleEpoch.Add(10*time.Minute)) {
			t.Fatalf("after A's advance: %s at %s", got.Status, got.UpdatedAt)
		}
		if s := settlementOf(t, a, fa); s.entries != 2 || s.notes[notification.TypeRefundConfirmed] != 1 || len(s.notes) != 1 ||
			s.balance.Available != 600 || s.balance.Held != 0 {
			t.Fatalf("A settled: %+v", s)
		}
		if got := refundStatus(t, a, fb); got.Status != refund.Pending {
			t.Fatalf("B's clock did not move, yet its refund is %s", got.Status)
		}

		base.Advance(10 * time.Minute) // B's clock (the base clock) reaches its answer
		runJobs(t, a)
		if got := refundStatus(t, a, fb); got.Status != refund.Rejected {
			t.Fatalf("B after the base clock's advance: %s", got.Status)
		}
		if s := settlementOf(t, a, fb); s.entries != 2 || s.notes[notification.TypeRefundRejected] != 1 || s.balance.Available != 1000 || s.balance.Held != 0 {
			t.Fatalf("B rejected: %+v", s)
		}
	})
}

// crashingBank takes a refund, then dies before its answer reaches
// bankrail (a panic: the attempt ends as a crash would), the first time
// it sees each refund; afterwards it answers what it took. It records
// every send.
type crashingBank struct {
	mu    sync.Mutex
	sends []string
}

func (b *crashingBank) Send(_ context.Context, t bank.Transfer) (bank.TransferAnswer, error) {
	b.mu.Lock()
	b.sends = append(b.sends, t.ID)
	first := len(b.sends) == 1
	b.mu.Unlock()
	if first {
		panic("the instance died after the bank took the refund")
	}
	return bank.TransferAnswer{State: bank.TransferCompleted}, nil
}

// An attempt that dies between the bank's answer and the settlement loses
// nothing: the job is retried (after its backoff, on the clock), the bank
// is asked again with the same id, and the refund moves once. Running the
// settlement again afterwards, or twice at once, changes nothing more.
func TestRefundSettlementSurvivesACrashBetweenMoves(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		base := clock.NewFake(settleEpoch)
		b := &crashingBank{}
		a := settleApp(t, db, config.Sandbox, base, app.Options{Transfers: b})
		f := requestRefund(t, a, settleShopA, receivedPayment(t, a, settleShopA, "settle-a", 1000), 300, false)
		runJobs(t, a)
		if got := refundStatus(t, a, f); got.Status != refund.Pending || len(b.sends) != 1 {
			t.Fatalf("after the crashed attempt: %s, %d sends", got.Status, len(b.sends))
		}
		if s := settlementOf(t, a, f); s.entries != 1 || len(s.notes) != 0 {
			t.Fatalf("after the crashed attempt: %+v", s)
		}
		if n := runJobs(t, a); n != 0 {
			t.Fatalf("%d jobs ran before the retry's backoff passed", n)
		}
		base.Advance(job.Backoff(1, 1))
		runJobs(t, a)
		if got := refundStatus(t, a, f); got.Status != refund.Confirmed || len(b.sends) != 2 || b.sends[1] != f.ID {
			t.Fatalf("after the retry: %s, sends %v", got.Status, b.sends)
		}
		want := settlement{entries: 2, notes: map[string]int{notification.TypeRefundConfirmed: 1}, balance: ledger.Balance{Available: 700}}
		if s := settlementOf(t, a, f); fmt.Sprint(s) != fmt.Sprint(want) {
			t.Fatalf("settled: %+v, want %+v", s, want)
		}

		// The job run again (an instance that died after the commit), and
		// twice at once: nothing more moves, nothing more is sent.
		args := refund.SettleArgs{Refund: f.ID, Customer: f.CustomerID}
		var wg sync.WaitGroup
		errsOf := make(chan error, 3)
		for range 3 {
			wg.Go(func() { errsOf <- a.Refunds().Settle(adminContext(), args) })
		}
		wg.Wait()
		close(errsOf)
		for err := range errsOf {
			if err != nil {
				t.Fatal(err)
			}
		}
		if s := settlementOf(t, a, f); fmt.Sprint(s) != fmt.Sprint(want) || len(b.sends) != 2 {
			t.Fatalf("after running the job again: %+v, %d sends", s, len(b.sends))
		}
	})
}

// gateBank answers every refund COMPLETED once n sends have arrived, so
// that n settlements of one refund race past the bank together.
type gateBank struct {
	n       int
	mu      sync.Mutex
	arrived int
	open    chan struct{}
}

func (b *gateBank) Send(ctx context.Context, _ bank.Transfer) (bank.TransferAnswer, error) {
	b.mu.Lock()
	b.arrived++
	if b.arrived == b.n {
		close(b.open)
	}
	b.mu.Unlock()
	select {
	case <-b.open:
	case <-ctx.Done():
		return bank.TransferAnswer{}, ctx.Err()
	}
	return bank.TransferAnswer{State: bank.TransferCompleted}, nil
}

// Two attempts of one settlement that both got the bank's answer (a lease
// that ran out while the first still ran) move the refund once: one
// settling entry, one notification, and neither attempt fails.
func TestConcurrentSettlementsMoveARefundOnce(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		b := &gateBank{n: 2, open: make(chan struct{})}
		a := settleApp(t, db, config.Sandbox, clock.NewFake(settleEpoch), app.Options{Transfers: b})
		f := requestRefund(t, a, settleShopA, receivedPayment(t, a, settleShopA, "settle-a", 1000), 250, false)
		ctx, cancel := context.WithTimeout(adminContext(), 30*time.Second)
		defer cancel()
		args := refund.SettleArgs{Refund: f.ID, Customer: f.CustomerID}
		var wg sync.WaitGroup
		errsOf := make(chan error, 2)
		for range 2 {
			wg.Go(func() { errsOf <- a.Refunds().Settle(ctx, args) })
		}
		wg.Wait()
		close(errsOf)
		for err := range errsOf {
			if err != nil {
				t.Fatal(err)
			}
		}
		want := settlement{entries: 2, notes: map[string]int{notification.TypeRefundConfirmed: 1}, balance: ledger.Balance{Available: 750}}
		if s := settlementOf(t, a, f); fmt.Sprint(s) != fmt.Sprint(want) || refundStatus(t, a, f).Status != refund.Confirmed {
			t.Fatalf("after two racing settlements: %+v", s)
		}
	})
}

// realBank stands for a production bank connector: PENDING with a time to
// ask again on its first answer, then COMPLETED; or, with reject, REJECTED.
type realBank struct {
	mu     sync.Mutex
	seen   map[string]bool
	reject bool
}

func (b *realBank) Send(_ context.Context, t bank.Transfer) (bank.TransferAnswer, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t.Scenario != "" {
		return bank.TransferAnswer{}, errors.New("production sends no sandbox scenario")
	}
	if !b.seen[t.ID] {
		b.seen[t.ID] = true
		return bank.TransferAnswer{State: bank.TransferPending, AskAgainAt: t.RequestedAt.Add(time.Minute)}, nil
	}
	if b.reject {
		return bank.TransferAnswer{State: bank.TransferRejected, Reason: "account closed"}, nil
	}
	return bank.TransferAnswer{State: bank.TransferCompleted}, nil
}

// Outside the sandbox refunds settle the same way, through whatever bank
// connector is wired: a bank that answers PENDING is asked again when it
// says (on the one clock of production), then its answer settles the
// refund. Without a connector a refund leaves in the next pain.001 file
// (internal/transfer): its transfer is queued, its money held, and the
// bank's answer to the file ends it (TestTransfersEndToEndInProduction).
func TestRefundsSettleInProduction(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		base := clock.NewFake(settleEpoch)
		sandbox := settleApp(t, db, config.Sandbox, base, app.Options{})
		paid := receivedPayment(t, sandbox, settleShopA, "settle-a", 1000) // production has no mock bank to receive it
		if err := sandbox.Close(); err != nil {
			t.Fatal(err)
		}

		bk := &realBank{seen: map[string]bool{}}
		prod := settleApp(t, db, config.Production, base, app.Options{Transfers: bk})
		f := requestRefund(t, prod, settleShopA, paid, 100, false)
		runJobs(t, prod)
		if got := refundStatus(t, prod, f); got.Status != refund.Pending {
			t.Fatalf("while the bank says PENDING: %s", got.Status)
		}
		base.Advance(time.Minute)
		runJobs(t, prod)
		if got := refundStatus(t, prod, f); got.Status != refund.Confirmed {
			t.Fatalf("after the bank's answer: %s", got.Status)
		}
		if s := settlementOf(t, prod, f); s.entries != 2 || s.notes[notification.TypeRefundConfirmed] != 1 || s.balance.Available != 900 {
			t.Fatalf("confirmed in production: %+v", s)
		}
		if err := prod.Close(); err != nil {
			t.Fatal(err)
		}

		files := settleApp(t, db, config.Production, base, app.Options{})
		g := requestRefund(t, files, settleShopA, paid, 200, false)
		runJobs(t, files)
		if got := refundStatus(t, files, g); got.Status != refund.Pending {
			t.Fatalf("sent in a transfer file: %s", got.Status)
		}
		if s := settlementOf(t, files, g); s.entries != 1 || len(s.notes) != 0 || s.balance.Available != 700 || s.balance.Held != 200 {
			t.Fatalf("queued for the next transfer file: %+v", s)
		}
		if tr, err := files.Store().Transfers().Get(adminContext(), g.TransactionID); err != nil || tr.State != transfer.Queued || tr.OwnerID != g.ID {
			t.Fatalf("its transfer: %+v %v", tr, err)
		}
	})
}
