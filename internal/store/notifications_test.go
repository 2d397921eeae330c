package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/store"
)

const (
	nCustomer = "30000000-0000-4000-8000-000000000001"
	nChild    = "30000000-0000-4000-8000-000000000002"
	nStranger = "30000000-0000-4000-8000-000000000003"
	nApp      = "30000000-0000-4000-8000-0000000000a1"
)

// notifyFixture creates a customer with a child and an application.
func notifyFixture(t testing.TB, s *store.Store) {
	t.Helper()
	ctx := context.Background()
	for _, c := range []identity.Customer{{ID: nCustomer, Name: "N"}, {ID: nChild, Name: "NC", ParentID: nCustomer}, {ID: nStranger, Name: "S"}} {
		c.CreatedAt = t0
		if err := s.CreateCustomer(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CreateApplication(ctx, identity.Application{ID: nApp, CustomerID: nCustomer, ClientID: "n-client",
		ClientSecretHash: "h", NotificationURL: "http://receiver.test/n", NotificationSecret: "n-secret", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
}

// eachNotifyStore runs fn in parallel with other tests, once per engine,
// on a migrated store holding the notification fixture.
func eachNotifyStore(t *testing.T, fn func(t *testing.T, s *store.Store)) {
	t.Helper()
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		notifyFixture(t, s)
		fn(t, s)
	})
}

func msg(payment, body string) notify.Message {
	return notify.Message{CustomerID: nChild, ClientID: "n-client", PaymentID: payment, Body: []byte(body)}
}

// deliver records an outcome for each claim.
func deliver(t *testing.T, s *store.Store, now time.Time, ok bool, claims ...notify.Claim) []string {
	t.Helper()
	var outs []notify.Outcome
	for _, c := range claims {
		a := notify.Attempt{NotificationID: c.ID, Number: c.Attempts, At: now, URL: c.Target(),
			RequestHeaders: map[string]string{"X": "y"}, RequestBody: c.Body, ResponseStatus: 500, Success: ok}
		if ok {
			a.ResponseStatus = 204
		} else {
			a.Error = "HTTP 500"
		}
		outs = append(outs, notify.Settle(c, a, now))
	}
	paused, err := s.CompleteDeliveries(context.Background(), outs)
	if err != nil {
		t.Fatal(err)
	}
	return paused
}

func claim(t *testing.T, s *store.Store, now time.Time) []notify.Claim {
	t.Helper()
	cs, err := s.ClaimNotifications(context.Background(), notify.ClaimRequest{Due: now, LeaseNow: now, Lease: time.Minute, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func payments(cs []notify.Claim) map[string]string {
	m := map[string]string{}
	for _, c := range cs {
		m[c.PaymentID] = string(c.Body)
	}
	return m
}

func TestNotificationOutbox(t *testing.T) {
	eachNotifyStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		now := t0

		t.Run("a rolled-back change sends nothing; a committed one is claimable", func(t *testing.T) {
			if _, err := s.EnqueueThen(ctx, now, errors.New("payment update failed"), msg("rolled-back", `{"n":0}`)); err == nil {
				t.Fatal("want the failure back")
			}
			ids, err := s.EnqueueThen(ctx, now, nil, msg("committed", `{"n":1}`))
			if err != nil || len(ids) != 1 {
				t.Fatal(ids, err)
			}
			cs := claim(t, s, now)
			if len(cs) != 1 || cs[0].ID != ids[0] || cs[0].PaymentID != "committed" || cs[0].Attempts != 1 {
				t.Fatalf("claims %+v", cs)
			}
			if cs[0].Secret != "n-secret" || cs[0].Target() != "http://receiver.test/n" || cs[0].ClientID != "n-client" {
				t.Fatalf("claim lacks its application: %+v", cs[0])
			}
			if again := claim(t, s, now); len(again) != 0 {
				t.Fatalf("a leased notification was claimed twice: %+v", again)
			}
			deliver(t, s, now, true, cs...)
			n, attempts, err := s.GetNotification(ctx, nCustomer, ids[0])
			if err != nil || n.Status != notify.Delivered || len(attempts) != 1 || !attempts[0].Success || attempts[0].RequestHeaders["X"] != "y" {
				t.Fatalf("after delivery: %+v %+v %v", n, attempts, err)
			}
		})

		t.Run("only the oldest pending notification of a payment is claimable", func(t *testing.T) {
			if _, err := s.EnqueueNotifications(ctx, now, msg("P", `{"p":1}`), msg("P", `{"p":2}`), msg("Q", `{"q":1}`)); err != nil {
				t.Fatal(err)
			}
			if _, err := s.EnqueueNotifications(ctx, now, msg("P", `{"p":3}`)); err != nil {
				t.Fatal(err)
			}
			cs := claim(t, s, now)
			if got := payments(cs); len(cs) != 2 || got["P"] != `{"p":1}` || got["Q"] != `{"q":1}` {
				t.Fatalf("claimed %v", got)
			}
			deliver(t, s, now, false, cs...) // P1 fails: P2 must wait for P1's retry
			if cs := claim(t, s, now.Add(4*time.Second)); len(cs) != 0 {
				t.Fatalf("claimed before the retry was due: %v", payments(cs))
			}
			cs = claim(t, s, now.Add(5*time.Second))
			if got := payments(cs); got["P"] != `{"p":1}` || cs[0].Attempts != 2 {
				t.Fatalf("retry claimed %v", got)
			}
			deliver(t, s, now.Add(5*time.Second), true, cs...)
			for _, want := range []string{`{"p":2}`, `{"p":3}`} {
				cs = claim(t, s, now.Add(5*time.Second))
				if got := payments(cs); len(cs) != 1 || got["P"] != want {
					t.Fatalf("claimed %v, want P %s", got, want)
				}
				deliver(t, s, now.Add(5*time.Second), true, cs...)
			}
		})

		t.Run("an expired lease is claimed again", func(t *testing.T) {
			ids, _ := s.EnqueueNotifications(ctx, now, msg("L", `{}`))
			first := claim(t, s, now)
			if len(first) != 1 || first[0].ID != ids[0] {
				t.Fatalf("%+v", first)
			}
			second := claim(t, s, now.Add(61*time.Second))
			if len(second) != 1 || second[0].ID != ids[0] || second[0].Attempts != 2 || second[0].LeaseID == first[0].LeaseID {
				t.Fatalf("%+v", second)
			}
			deliver(t, s, now, false, first...) // the stale worker's result does not move the notification
			deliver(t, s, now.Add(61*time.Second), true, second...)
			n, attempts, _ := s.GetNotification(ctx, nCustomer, ids[0])
			if n.Status != notify.Delivered || len(attempts) != 2 {
				t.Fatalf("%+v, %d attempts", n, len(attempts))
			}
		})

		t.Run("six consecutive failures pause the application until a test succeeds", func(t *testing.T) {
			at := now.Add(time.Hour)
			for i := range 6 {
				if _, err := s.EnqueueNotifications(ctx, at, msg("F"+string(rune('a'+i)), `{}`)); err != nil {
					t.Fatal(err)
				}
			}
			cs := claim(t, s, at)
			if len(cs) != 6 {
				t.Fatalf("claimed %d", len(cs))
			}
			if paused := deliver(t, s, at, false, cs[:5]...); len(paused) != 0 {
				t.Fatal("paused after 5 failures")
			}
			if paused := deliver(t, s, at, false, cs[5]); len(paused) != 1 || paused[0] != nApp {
				t.Fatalf("paused %v after 6 failures", paused)
			}
			if _, paused, _ := s.NotificationStats(ctx); paused != 1 {
				t.Fatalf("paused applications %d", paused)
			}
			if cs := claim(t, s, at.Add(time.Hour)); len(cs) != 0 {
				t.Fatalf("claimed %d while paused", len(cs))
			}
			failed := testNotification(at, false)
			if resumed, err := s.RecordTestNotification(ctx, failed, testAttempt(failed, false, at), at); err != nil || resumed {
				t.Fatalf("failed test: %v %v", resumed, err)
			}
			ok := testNotification(at.Add(time.Second), true)
			if resumed, err := s.RecordTestNotification(ctx, ok, testAttempt(ok, true, at), at.Add(time.Second)); err != nil || !resumed {
				t.Fatalf("successful test: %v %v", resumed, err)
			}
			cs = claim(t, s, at.Add(time.Second)) // held ones are due at once, not at their retry time
			if len(cs) != 6 {
				t.Fatalf("claimed %d after resume", len(cs))
			}
			deliver(t, s, at, true, cs...)
		})

		t.Run("redeliver and the delivery log", func(t *testing.T) {
			ids, _ := s.EnqueueNotifications(ctx, now, msg("R", `{"r":1}`))
			deliver(t, s, now, true, claim(t, s, now)...)
			n, err := s.RedeliverNotification(ctx, nCustomer, ids[0], now.Add(time.Minute))
			if err != nil || n.Status != notify.Pending || n.RetryFrom != 1 || n.ClientID != "n-client" {
				t.Fatalf("redeliver: %+v %v", n, err)
			}
			cs := claim(t, s, now.Add(time.Minute))
			if len(cs) != 1 || cs[0].ID != ids[0] {
				t.Fatalf("%+v", cs)
			}
			deliver(t, s, now.Add(time.Minute), false, cs...) // a fresh schedule: retried, not FAILED
			if n, _, _ := s.GetNotification(ctx, nCustomer, ids[0]); n.Status != notify.Pending || !n.NextAttemptAt.Equal(now.Add(time.Minute+5*time.Second)) {
				t.Fatalf("after a failed redelivery: %+v", n)
			}
			if _, err := s.RedeliverNotification(ctx, nStranger, ids[0], now); !errs.Is(err, errs.NotFound) {
				t.Fatalf("a stranger redelivered: %v", err)
			}
			if _, _, err := s.GetNotification(ctx, nStranger, ids[0]); !errs.Is(err, errs.NotFound) {
				t.Fatalf("a stranger read: %v", err)
			}
			if _, _, err := s.GetNotification(ctx, nChild, ids[0]); err != nil {
				t.Fatalf("the customer itself: %v", err)
			}
			page, err := s.ListNotifications(ctx, nCustomer, notify.Filter{PaymentID: "P", Page: 1, Limit: 2})
			if err != nil || page.TotalItems != 3 || len(page.Items) != 2 || string(page.Items[0].Body) != `{"p":3}` {
				t.Fatalf("list: %+v %v", page, err)
			}
			page, _ = s.ListNotifications(ctx, nCustomer, notify.Filter{Status: notify.Pending, Page: 1, Limit: 100})
			for _, n := range page.Items {
				if n.Status != notify.Pending {
					t.Fatalf("status filter let through %s", n.Status)
				}
			}
			if page, _ := s.ListNotifications(ctx, nStranger, notify.Filter{Page: 1, Limit: 100}); page.TotalItems != 0 {
				t.Fatalf("a stranger lists %d", page.TotalItems)
			}
			if page, _ := s.ListNotifications(ctx, nCustomer, notify.Filter{CreatedFrom: new(now.Add(time.Second)), Page: 1, Limit: 100}); page.TotalItems != 8 {
				t.Fatalf("created filter: %d", page.TotalItems)
			}
		})

		t.Run("concurrent claims never lease a notification twice", func(t *testing.T) {
			at := now.Add(48 * time.Hour)
			var msgs []notify.Message
			for i := range 60 {
				msgs = append(msgs, msg("C"+string(rune('A'+i%20)), `{}`))
			}
			if _, err := s.EnqueueNotifications(ctx, at, msgs...); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			seen := map[string]int{}
			var wg sync.WaitGroup
			for range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 30 {
						cs, err := s.ClaimNotifications(ctx, notify.ClaimRequest{Due: at, LeaseNow: at, Lease: time.Minute, Limit: 3})
						if err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						for _, c := range cs {
							if c.PaymentID[0] == 'C' { // not a leftover of an earlier subtest
								seen[c.ID]++
							}
						}
						mu.Unlock()
						if len(cs) > 0 {
							if _, err := s.CompleteDeliveries(ctx, settleAll(cs, at)); err != nil {
								t.Error(err)
								return
							}
						}
					}
				}()
			}
			wg.Wait()
			if len(seen) != 60 {
				t.Fatalf("delivered %d of 60", len(seen))
			}
			for id, n := range seen {
				if n != 1 {
					t.Fatalf("%s claimed %d times", id, n)
				}
			}
		})
	})
}

func settleAll(cs []notify.Claim, at time.Time) []notify.Outcome {
	var outs []notify.Outcome
	for _, c := range cs {
		outs = append(outs, notify.Settle(c, notify.Attempt{NotificationID: c.ID, Number: c.Attempts, At: at, Success: true, ResponseStatus: 200}, at))
	}
	return outs
}

var testSeq int

func testNotification(at time.Time, ok bool) notify.Notification {
	testSeq++
	n := notify.Notification{ID: "40000000-0000-4000-8000-00000000000" + string(rune('0'+testSeq)), CustomerID: nCustomer,
		ApplicationID: nApp, Type: "test", Body: []byte(`{}`), Status: notify.Failed, Attempts: 1, CreatedAt: at}
	if ok {
		n.Status, n.DeliveredAt = notify.Delivered, at
	}
	return n
}

func testAttempt(n notify.Notification, ok bool, at time.Time) notify.Attempt {
	return notify.Attempt{NotificationID: n.ID, Number: 1, At: at, URL: "http://receiver.test/n", Success: ok}
}
