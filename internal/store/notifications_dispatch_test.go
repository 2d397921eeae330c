package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/notify/dispatch"
	"github.com/bankrail/bankrail/internal/store"
	"github.com/bankrail/bankrail/notification"
)

// TestRolledBackChangeSendsNothing runs the real dispatcher against a real
// receiver: a notification written in a transaction that rolls back is never
// sent; one whose transaction commits is, signed.
func TestRolledBackChangeSendsNothing(t *testing.T) {
	eachNotifyStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		var mu sync.Mutex
		var got []string
		arrived := make(chan struct{}, 10)
		rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if err := notification.Verify("n-secret", r.Header, body); err != nil {
				t.Errorf("unverifiable notification: %v", err)
			}
			mu.Lock()
			got = append(got, string(body))
			mu.Unlock()
			arrived <- struct{}{}
		}))
		defer rc.Close()
		if err := s.UpdateApplication(ctx, identity.Application{ID: nApp, ClientSecretHash: "h", NotificationURL: rc.URL,
			NotificationSecret: "n-secret"}); err != nil {
			t.Fatal(err)
		}
		clk := clock.NewFake(t0)
		d := dispatch.New(s, clk, slog.New(slog.NewTextHandler(io.Discard, nil)), dispatch.Options{})
		d.Start(ctx)
		defer d.Stop()

		if _, err := s.EnqueueThen(ctx, t0, errors.New("the payment update failed"), msg("pay-1", `{"change":"rolled back"}`)); err == nil {
			t.Fatal("want the failure")
		}
		if _, err := s.EnqueueThen(ctx, t0, nil, msg("pay-2", `{"change":"committed"}`)); err != nil {
			t.Fatal(err)
		}
		select {
		case <-arrived:
		case <-time.After(10 * time.Second):
			t.Fatal("the committed notification was not delivered")
		}
		clk.Advance(time.Hour)
		time.Sleep(300 * time.Millisecond) // several polls: nothing else may arrive
		mu.Lock()
		defer mu.Unlock()
		if len(got) != 1 || got[0] != `{"change":"committed"}` {
			t.Fatalf("receiver got %q", got)
		}
	})
}

// TestStopReleasesAttemptsInFlight: stopping the dispatcher while a
// receiver is slow gives the notification back at once, without counting an
// attempt, so another instance delivers it without waiting for the lease.
func TestStopReleasesAttemptsInFlight(t *testing.T) {
	eachNotifyStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		entered := make(chan struct{}, 1)
		release := make(chan struct{})
		rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			entered <- struct{}{}
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		defer rc.Close()
		defer close(release)
		if err := s.UpdateApplication(ctx, identity.Application{ID: nApp, ClientSecretHash: "h", NotificationURL: rc.URL,
			NotificationSecret: "n-secret"}); err != nil {
			t.Fatal(err)
		}
		d := dispatch.New(s, clock.NewFake(t0), slog.New(slog.NewTextHandler(io.Discard, nil)), dispatch.Options{})
		d.Start(ctx)
		ids, _ := s.EnqueueNotifications(ctx, t0, msg("slow", `{}`))
		select {
		case <-entered:
		case <-time.After(10 * time.Second):
			t.Fatal("not sent")
		}
		d.Stop()
		n, attempts, err := s.GetNotification(ctx, nCustomer, ids[0])
		if err != nil || n.Status != notify.Pending || n.Attempts != 0 || len(attempts) != 0 {
			t.Fatalf("after stop: %+v %d attempts, %v", n, len(attempts), err)
		}
		if cs := claim(t, s, t0); len(cs) != 1 {
			t.Fatal("the released notification is not claimable at once")
		}
	})
}

// startDispatcher runs a dispatcher on s until the test ends.
func startDispatcher(t *testing.T, s *store.Store, clk clock.Clock) {
	d := dispatch.New(s, clk, slog.New(slog.DiscardHandler), dispatch.Options{})
	d.Start(context.Background())
	t.Cleanup(d.Stop)
}

// TestSlowReceiverDoesNotHoldBackOthers: an application whose receiver
// hangs keeps at most a few deliveries in flight; another customer's
// notifications go out meanwhile.
func TestSlowReceiverDoesNotHoldBackOthers(t *testing.T) {
	eachNotifyStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		hang := make(chan struct{})
		slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-hang:
			case <-r.Context().Done():
			}
		}))
		defer slow.Close()
		defer close(hang)
		fast := make(chan string, 100)
		quick := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fast <- r.Header.Get(notification.HeaderNotificationID)
		}))
		defer quick.Close()
		if err := s.UpdateApplication(ctx, identity.Application{ID: nApp, ClientSecretHash: "h", NotificationURL: slow.URL, NotificationSecret: "n"}); err != nil {
			t.Fatal(err)
		}
		other := "30000000-0000-4000-8000-0000000000a2"
		if err := s.CreateApplication(ctx, identity.Application{ID: other, CustomerID: nStranger, ClientID: "s-client",
			ClientSecretHash: "h", NotificationURL: quick.URL, NotificationSecret: "s", CreatedAt: t0}); err != nil {
			t.Fatal(err)
		}
		startDispatcher(t, s, clock.NewFake(t0))
		for i := range 100 { // far more than the dispatcher's slots, all for the hanging receiver
			if _, err := s.EnqueueNotifications(ctx, t0, msg("slow-"+string(rune('A'+i%50))+string(rune('a'+i/50)), `{}`)); err != nil {
				t.Fatal(err)
			}
		}
		var want []notify.Message
		for i := range 20 {
			want = append(want, notify.Message{CustomerID: nStranger, ApplicationID: other, PaymentID: "fast-" + string(rune('a'+i)), Body: []byte(`{}`)})
		}
		if _, err := s.EnqueueNotifications(ctx, t0, want...); err != nil {
			t.Fatal(err)
		}
		for range want {
			select {
			case <-fast:
			case <-time.After(5 * time.Second):
				t.Fatal("another customer's notifications wait behind a hanging receiver")
			}
		}
	})
}

// TestSeveralInstancesShareTheOutbox: dispatchers of two instances (two
// stores on one database) deliver every notification, none twice, in
// order per payment.
func TestSeveralInstancesShareTheOutbox(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		notifyFixture(t, s)
		second := open(t, db)
		ctx := context.Background()
		var mu sync.Mutex
		seen := map[string]int{}
		last := map[string]int{}
		outOfOrder := 0
		rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			var b struct {
				P string `json:"p"`
				N int    `json:"n"`
			}
			_ = json.Unmarshal(body, &b)
			mu.Lock()
			defer mu.Unlock()
			seen[r.Header.Get(notification.HeaderNotificationID)]++
			if b.N < last[b.P] {
				outOfOrder++
			}
			last[b.P] = b.N
		}))
		defer rc.Close()
		if err := s.UpdateApplication(ctx, identity.Application{ID: nApp, ClientSecretHash: "h", NotificationURL: rc.URL, NotificationSecret: "n"}); err != nil {
			t.Fatal(err)
		}
		clk := clock.NewFake(t0)
		startDispatcher(t, s, clk)
		startDispatcher(t, second, clk)
		const payments, each = 20, 10
		for n := range each {
			for p := range payments {
				body := fmt.Sprintf(`{"p":"%d","n":%d}`, p, n+1)
				if _, err := s.EnqueueNotifications(ctx, t0, msg(fmt.Sprintf("multi-%d", p), body)); err != nil {
					t.Fatal(err)
				}
			}
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			mu.Lock()
			n := len(seen)
			mu.Unlock()
			if n == payments*each {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("delivered %d of %d", n, payments*each)
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		for id, n := range seen {
			if n != 1 {
				t.Errorf("%s delivered %d times", id, n)
			}
		}
		if outOfOrder != 0 {
			t.Errorf("%d deliveries out of order", outOfOrder)
		}
	})
}
