package store_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/store"
)

// dyingKeys are an instance's idempotency keys that stop reaching the
// database once dead: the instance was killed, as far as the others can
// tell.
type dyingKeys struct {
	idempotency.Keys
	dead    atomic.Bool
	refused atomic.Int32 // heartbeats since it died
}

func (d *dyingKeys) Extend(ctx context.Context, t idempotency.Ticket, until time.Time) (bool, error) {
	if d.dead.Load() {
		d.refused.Add(1)
		return false, errDied
	}
	return d.Keys.Extend(ctx, t, until)
}

// An Idempotency-Key's lease is short (issue 28 item 7: a key in flight
// at an instance's kill answered 409 for up to 30 s): while its request
// runs, the holder's heartbeat keeps it in flight (the same request again
// is 409 with Retry-After, also 60 s of the fake clock later, four short
// leases); once the request completes it is replayed. When the holder
// stops heartbeating (killed mid-request), the same request again 16 s
// after its last heartbeat takes the key over and runs.
func TestIdempotencyLeaseShortWithHeartbeat(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		const customer = "23000000-0000-4000-8000-000000000001"
		if err := s.CreateCustomer(ctx, identity.Customer{ID: customer, Name: "Keys", CreatedAt: t0}); err != nil {
			t.Fatal(err)
		}
		clk := clock.NewFake(t0)
		cfg := idempotency.Config{TTL: time.Hour, Heartbeat: 2 * time.Millisecond} // the default lease
		guard := idempotency.NewGuard(s.IdempotencyKeys(), clk, cfg)
		complete := func(ctx context.Context, tk *idempotency.Ticket, body string) (idempotency.Result, error) {
			r := idempotency.Result{ResourceID: body, Body: []byte(body)}
			return r, s.InTx(ctx, func(tx *store.Tx) error { return tx.Idempotency().Complete(ctx, *tk, r) })
		}
		never := func(context.Context, *idempotency.Ticket) (idempotency.Result, error) {
			t.Error("a request ran while its key was in flight")
			return idempotency.Result{}, errors.New("ran")
		}
		// beat waits (real time, for the heartbeat goroutine) until key's
		// lease ends more than 5 s past the fake clock: renewed since its
		// last move.
		beat := func(key string) {
			t.Helper()
			want := clk.Now().Add(5 * time.Second)
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
				until, err := s.KeyLease(ctx, customer, key)
				if err != nil {
					t.Fatal(err)
				}
				if until.After(want) {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("no heartbeat: key %s in flight until %s, want after %s", key, until, want)
				}
			}
		}

		// A live, long request keeps its key.
		live := idempotency.Request{CustomerID: customer, Key: "live", Fingerprint: "f", Noun: "refund"}
		started, release := make(chan struct{}), make(chan struct{})
		done := make(chan error, 1)
		go func() {
			_, _, err := guard.Do(ctx, live, func(ctx context.Context, tk *idempotency.Ticket) (idempotency.Result, error) {
				close(started)
				<-release
				return complete(ctx, tk, "first")
			})
			done <- err
		}()
		<-started
		for range 6 {
			clk.Advance(10 * time.Second)
			beat(live.Key)
			var e *errs.Error
			if _, _, err := guard.Do(ctx, live, never); !errors.As(err, &e) || e.Code != errs.IdempotencyConflict ||
				e.RetryAfter != idempotency.RetryAfter {
				t.Fatalf("the same request while the first runs: %v, want IDEMPOTENCY_CONFLICT with Retry-After", err)
			}
		}
		close(release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if res, replayed, err := guard.Do(ctx, live, never); err != nil || !replayed || string(res.Body) != "first" {
			t.Fatalf("after completion: %q replayed %v, %v", res.Body, replayed, err)
		}

		// A holder killed mid-request loses its key within the short lease.
		dying := &dyingKeys{Keys: s.IdempotencyKeys()}
		doomed := idempotency.NewGuard(dying, clk, cfg)
		killed := idempotency.Request{CustomerID: customer, Key: "killed", Fingerprint: "f", Noun: "refund"}
		started, hung := make(chan struct{}), make(chan struct{})
		t.Cleanup(func() { close(hung) })
		go func() {
			_, _, err := doomed.Do(ctx, killed, func(context.Context, *idempotency.Ticket) (idempotency.Result, error) {
				close(started)
				<-hung // never completes: its instance is gone
				return idempotency.Result{}, errDied
			})
			done <- err
		}()
		<-started
		clk.Advance(10 * time.Second)
		beat(killed.Key)
		dying.dead.Store(true)
		for dying.refused.Load() == 0 { // no heartbeat of before is still on its way
			time.Sleep(time.Millisecond)
		}
		clk.Advance(10 * time.Second)
		if _, _, err := guard.Do(ctx, killed, never); !errs.Is(err, errs.IdempotencyConflict) {
			t.Fatalf("10 s after the holder's last heartbeat: %v, want still in flight", err)
		}
		clk.Advance(6 * time.Second)
		res, replayed, err := guard.Do(ctx, killed, func(ctx context.Context, tk *idempotency.Ticket) (idempotency.Result, error) {
			return complete(ctx, tk, "retried")
		})
		if err != nil || replayed || string(res.Body) != "retried" {
			t.Fatalf("16 s after the holder's last heartbeat: %q replayed %v, %v; want the retry to run", res.Body, replayed, err)
		}
	})
}
