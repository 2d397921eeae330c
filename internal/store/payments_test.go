package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/store"
)

func TestPaymentStore(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		parent := identity.Customer{ID: "20000000-0000-4000-8000-000000000001", Name: "PSP", CreatedAt: t0}
		child := identity.Customer{ID: "20000000-0000-4000-8000-000000000002", Name: "Shop", ParentID: parent.ID, CreatedAt: t0}
		for _, c := range []identity.Customer{parent, child} {
			if err := s.CreateCustomer(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		t.Run("idempotency claims", func(t *testing.T) { testIdempotencyClaims(t, s, child.ID) })
		t.Run("payments", func(t *testing.T) { testPayments(t, s, parent.ID, child.ID) })
	})
}

func testIdempotencyClaims(t *testing.T, s *store.Store, customer string) {
	ctx := context.Background()
	keys := s.IdempotencyKeys()
	c := idempotency.Claim{CustomerID: customer, Key: "k1", RequestHash: "h1", Token: "tok-a", Now: t0,
		TTL: 24 * time.Hour, Lease: 30 * time.Second}
	claim := func(c idempotency.Claim) idempotency.ClaimResult {
		t.Helper()
		res, err := keys.Claim(ctx, c)
		if err != nil {
			t.Fatalf("claim: %v", err)
		}
		return res
	}
	if d := claim(c).Decision; d != idempotency.DecisionClaimed {
		t.Fatalf("first claim: %d", d)
	}
	second := c
	second.Token = "tok-b"
	if d := claim(second).Decision; d != idempotency.DecisionInFlight {
		t.Fatalf("claim while pending: %d, want in flight", d)
	}
	// The first holder's lease runs out: the second takes over, and the
	// first can no longer complete.
	second.Now = t0.Add(31 * time.Second)
	if d := claim(second).Decision; d != idempotency.DecisionClaimed {
		t.Fatalf("claim after the lease: %d, want claimed", d)
	}
	p := testPayment("30000000-0000-4000-8000-000000000001", customer, "CODE000001", t0)
	stale := idempotency.Ticket{CustomerID: customer, Key: "k1", Token: "tok-a"}
	if err := createCompleting(ctx, s, p, stale, idempotency.Result{Body: []byte(`{}`)}); !errs.Is(err, errs.IdempotencyConflict) {
		t.Fatalf("completion with a stale token: %v, want IDEMPOTENCY_CONFLICT", err)
	}
	if _, err := s.Payments().Get(ctx, customer, p.ID); !errs.Is(err, errs.NotFound) {
		t.Fatalf("the payment of a failed completion must roll back: %v", err)
	}
	fresh := idempotency.Ticket{CustomerID: customer, Key: "k1", Token: "tok-b"}
	if err := createCompleting(ctx, s, p, fresh, idempotency.Result{Body: []byte(`{"id":"x"}`), ResourceID: p.ID}); err != nil {
		t.Fatalf("completion: %v", err)
	}
	res := claim(idempotency.Claim{CustomerID: customer, Key: "k1", RequestHash: "h1", Token: "tok-c", Now: t0.Add(time.Minute), TTL: time.Hour})
	if res.Decision != idempotency.DecisionReplay || string(res.Record.Result.Body) != `{"id":"x"}` ||
		!res.Record.Done || res.Record.Result.ResourceID != p.ID {
		t.Fatalf("replay: %+v", res)
	}
	// Released keys can be claimed again at once.
	c2 := idempotency.Claim{CustomerID: customer, Key: "k2", RequestHash: "h1", Token: "tok-d", Now: t0, TTL: time.Hour, Lease: time.Minute}
	claim(c2)
	if err := keys.Release(ctx, idempotency.Ticket{CustomerID: customer, Key: "k2", Token: "tok-d"}); err != nil {
		t.Fatal(err)
	}
	c2.Token, c2.RequestHash = "tok-e", "h2"
	if d := claim(c2).Decision; d != idempotency.DecisionClaimed {
		t.Fatalf("claim after release: %d", d)
	}
}

// createCompleting creates p and completes the idempotency key t with r in
// one unit of work, as a creating use case does.
func createCompleting(ctx context.Context, s *store.Store, p payment.Payment, t idempotency.Ticket, r idempotency.Result) error {
	return s.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.Payments().Create(ctx, p); err != nil {
			return err
		}
		return tx.Idempotency().Complete(ctx, t, r)
	})
}

func testPayment(id, customer, code string, at time.Time) payment.Payment {
	amount := int64(100)
	return payment.Payment{ID: id, CustomerID: customer, ClientID: "client", UserID: "user", Channel: payment.ChannelHosted,
		Request: payment.CreateRequest{Currency: "EUR", Amount: &amount, PaymentSystem: bank.OpenBankingEU,
			InternalReference: "ref-" + code, OpenBankingEU: &payment.OpenBankingEU{}},
		Status: payment.StatusNew, History: []payment.StatusUpdate{{Status: payment.StatusNew, CreatedAt: at}},
		UniqueReference: "U" + code, ShortCode: code, CheckoutToken: "token", CreatedAt: at, UpdatedAt: at}
}

func testPayments(t *testing.T, s *store.Store, parent, child string) {
	ctx := context.Background()
	// Three payments, two at the same instant: the id breaks the tie.
	ids := []string{"40000000-0000-4000-8000-00000000000a", "40000000-0000-4000-8000-00000000000b", "40000000-0000-4000-8000-00000000000c"}
	times := []time.Time{t0, t0.Add(time.Second), t0.Add(time.Second)}
	for i, id := range ids {
		if err := s.Payments().Create(ctx, testPayment(id, child, "LIST00000"+string(rune('1'+i)), times[i])); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Payments().Get(ctx, parent, ids[0])
	if err != nil || got.CustomerID != child || *got.Request.Amount != 100 || !got.CreatedAt.Equal(t0) || len(got.History) != 1 {
		t.Fatalf("the parent reads its child's payment: %+v %v", got, err)
	}
	if _, err := s.Payments().Get(ctx, "20000000-0000-4000-8000-0000000000ff", ids[0]); !errs.Is(err, errs.NotFound) {
		t.Fatalf("a stranger's read: %v, want RESOURCE_NOT_FOUND", err)
	}
	page, total, err := s.Payments().List(ctx, parent, payment.ListFilter{Page: 1, Limit: 2})
	if err != nil || total < 3 || len(page) != 2 || page[0].ID != ids[2] || page[1].ID != ids[1] {
		t.Fatalf("page 1: %d items, total %d, %v", len(page), total, err)
	}
	page, _, err = s.Payments().List(ctx, child, payment.ListFilter{Page: 1, Limit: 10, InternalReference: "ref-LIST000001",
		CreatedFrom: &t0, CreatedTo: &t0})
	if err != nil || len(page) != 1 || page[0].ID != ids[0] {
		t.Fatalf("filtered: %d items, %v", len(page), err)
	}
	if err := s.Payments().SetSender(ctx, ids[0], payment.Sender{Name: "Anna Müller", IBAN: "DE89370400440532013000"}, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	got, err = s.Payments().GetByShortCode(ctx, "LIST000001")
	if err != nil || got.Sender == nil || got.Sender.Name != "Anna Müller" || !got.UpdatedAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("sender: %+v %v", got.Sender, err)
	}
	if err := s.Payments().SetSender(ctx, "40000000-0000-4000-8000-0000000000ff", payment.Sender{Name: "x"}, t0); !errs.Is(err, errs.NotFound) {
		t.Fatalf("sender of a missing payment: %v", err)
	}
}
