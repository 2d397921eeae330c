package store_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"bankrail/internal/clock"
	"bankrail/internal/identity"
	"bankrail/internal/notify"
	"bankrail/internal/notify/dispatch"
	"bankrail/internal/store"
	"bankrail/notification"
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
