package store_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/notify/dispatch"
	"github.com/bankrail/bankrail/internal/store"
)

// dyingOutbox is an instance's outbox that stops renewing leases once
// dead: the instance was killed, as far as the others can tell.
type dyingOutbox struct {
	*store.Store
	dead    atomic.Bool
	refused atomic.Int32 // heartbeats since it died
}

// ClaimNotifications finds nothing once it died: a dead instance claims
// no more.
func (d *dyingOutbox) ClaimNotifications(ctx context.Context, r notify.ClaimRequest) ([]notify.Claim, error) {
	if d.dead.Load() {
		return nil, errDied
	}
	return d.Store.ClaimNotifications(ctx, r)
}

func (d *dyingOutbox) ExtendNotificationLeases(ctx context.Context, leases []string, until time.Time) error {
	if d.dead.Load() {
		d.refused.Add(1)
		return errDied
	}
	return d.Store.ExtendNotificationLeases(ctx, leases, until)
}

// A notification's delivery lease is short (issue 28 item 7: it was six
// times the receiver's timeout, 60 s): while a receiver takes its time
// (60 s of the fake wall clock, four leases), the delivering dispatcher's
// heartbeat keeps the notification from every other claim, and its answer
// is recorded once; when the dispatcher stops heartbeating (its instance
// was killed mid-delivery), the notification is claimable again 16 s after
// its last heartbeat, not before 15 s.
func TestNotificationLeaseShortWithHeartbeat(t *testing.T) {
	eachNotifyStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		entered, release := make(chan struct{}, 4), make(chan struct{})
		rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			entered <- struct{}{}
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		t.Cleanup(rc.Close)
		if err := s.UpdateApplication(ctx, identity.Application{ID: nApp, ClientSecretHash: "h", NotificationURL: rc.URL,
			NotificationSecret: "n-secret"}); err != nil {
			t.Fatal(err)
		}
		wall := clock.NewFake(t0)
		opts := dispatch.Options{Wall: wall, Heartbeat: 2 * time.Millisecond, Timeout: 5 * time.Minute} // the default lease
		start := func(out dispatch.Store) *dispatch.Dispatcher {
			d := dispatch.New(out, clock.NewFake(t0), slog.New(slog.DiscardHandler), opts)
			d.Start(ctx)
			return d
		}
		send := func(payment string) string {
			t.Helper()
			ids, err := s.EnqueueNotifications(ctx, t0, msg(payment, `{}`))
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-entered:
			case <-time.After(10 * time.Second):
				t.Fatal("not sent")
			}
			return ids[0]
		}
		// beat waits (real time, for the heartbeat goroutine) until id's
		// lease ends more than 5 s past the wall clock: renewed since its
		// last move.
		beat := func(id string) {
			t.Helper()
			want := wall.Now().Add(5 * time.Second)
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
				until, err := s.NotificationLease(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if until.After(want) {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("no heartbeat: notification %s leased until %s, want after %s", id, until, want)
				}
			}
		}

		// A live, slow delivery keeps its notification.
		live := start(s)
		id := send("live")
		for range 6 {
			wall.Advance(10 * time.Second)
			beat(id)
			if cs := claim(t, s, wall.Now()); len(cs) != 0 {
				t.Fatalf("claimed %d notifications while the delivering dispatcher's heartbeat beat", len(cs))
			}
		}
		release <- struct{}{}
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) { // the answer is recorded
			n, attempts, err := s.GetNotification(ctx, nCustomer, id)
			if err == nil && n.Status == notify.Delivered && len(attempts) == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after the slow delivery: %s, %d attempts, %v; want DELIVERED once", n.Status, len(attempts), err)
			}
		}
		live.Stop()

		// A dispatcher killed mid-delivery loses its notification within the short lease.
		dying := &dyingOutbox{Store: s}
		doomed := start(dying)
		t.Cleanup(doomed.Stop)
		t.Cleanup(func() { close(release) })
		id = send("killed")
		wall.Advance(10 * time.Second)
		beat(id)
		dying.dead.Store(true)
		for dying.refused.Load() == 0 { // no heartbeat of before is still on its way
			time.Sleep(time.Millisecond)
		}
		wall.Advance(10 * time.Second)
		if cs := claim(t, s, wall.Now()); len(cs) != 0 {
			t.Fatalf("10 s after the last heartbeat: %d claimed, want none yet", len(cs))
		}
		wall.Advance(6 * time.Second)
		if cs := claim(t, s, wall.Now()); len(cs) != 1 || cs[0].ID != id {
			t.Fatalf("16 s after the last heartbeat: %d claimed, want the notification", len(cs))
		}
	})
}
