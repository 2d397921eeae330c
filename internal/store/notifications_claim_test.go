package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/store"
)

const nApp2 = "30000000-0000-4000-8000-0000000000a2"

// claimReq claims at now with limit, skipping the applications in skip.
func claimReq(t *testing.T, s *store.Store, now time.Time, limit int, skip ...string) []notify.Claim {
	t.Helper()
	cs, err := s.ClaimNotifications(context.Background(),
		notify.ClaimRequest{Due: now, LeaseNow: now, Lease: time.Minute, Limit: limit, Skip: skip})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// bodies lists the claims' bodies in time order of their notifications.
func bodies(cs []notify.Claim) map[string]bool {
	m := map[string]bool{}
	for _, c := range cs {
		m[string(c.Body)] = true
	}
	return m
}

// The claim looks application by application: the backlog of an
// application the caller skips (at its limit) or of a paused one is passed
// over, the oldest due notifications of the others go first, the limit
// holds across applications, and nothing due means nothing claimed.
func TestClaimLooksApplicationByApplication(t *testing.T) {
	eachNotifyStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		if err := s.CreateApplication(ctx, identity.Application{ID: nApp2, CustomerID: nCustomer, ClientID: "n-client-2",
			ClientSecretHash: "h", NotificationURL: "http://receiver.test/n2", NotificationSecret: "n2-secret", CreatedAt: t0}); err != nil {
			t.Fatal(err)
		}
		// The first application's 20 notifications at even seconds, the second's 3 at odd ones.
		for i := range 20 {
			if _, err := s.EnqueueNotifications(ctx, t0.Add(time.Duration(2*i)*time.Second),
				msg(fmt.Sprintf("a%02d", i), fmt.Sprintf(`{"a":%d}`, i))); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 3 {
			m := msg(fmt.Sprintf("b%02d", i), fmt.Sprintf(`{"b":%d}`, i))
			m.ClientID = "n-client-2"
			if _, err := s.EnqueueNotifications(ctx, t0.Add(time.Duration(2*i+1)*time.Second), m); err != nil {
				t.Fatal(err)
			}
		}
		now := t0.Add(time.Minute)

		if cs := claimReq(t, s, t0.Add(-time.Second), 10); len(cs) != 0 {
			t.Fatalf("nothing is due yet, claimed %d", len(cs))
		}
		cs := claimReq(t, s, now, 2, nApp)
		if got := bodies(cs); len(cs) != 2 || !got[`{"b":0}`] || !got[`{"b":1}`] {
			t.Fatalf("skipping the busy application: want the other's two oldest, got %v", got)
		}
		left, err := s.ClaimNotifications(ctx, notify.ClaimRequest{Due: now, LeaseNow: now, Lease: time.Minute, Limit: 5,
			Skip: []string{nApp}, Left: map[string]int{nApp2: 0}})
		if err != nil || len(left) != 0 {
			t.Fatalf("no slot left for the second application, claimed %d (%v)", len(left), err)
		}
		if cs := claimReq(t, s, now, 5, nApp, nApp2); len(cs) != 0 {
			t.Fatalf("both applications skipped, claimed %d", len(cs))
		}
		deliver(t, s, now, true, cs...)
		cs = claimReq(t, s, now, 4)
		if got := bodies(cs); len(cs) != 4 || !got[`{"a":0}`] || !got[`{"a":1}`] || !got[`{"b":2}`] || !got[`{"a":2}`] {
			t.Fatalf("the limit across applications, oldest first: got %v", got)
		}
		for _, c := range cs {
			if c.Attempts != 1 {
				t.Fatalf("claim counted %d attempts", c.Attempts)
			}
		}

		// Six failures pause the first application: its 17 left are passed over.
		failed := cs
		for countApp(failed, nApp) < notify.PauseAfter {
			failed = append(failed, claimReq(t, s, now, notify.PauseAfter-countApp(failed, nApp), nApp2)...)
		}
		var paused []string
		for _, c := range failed {
			if c.ApplicationID == nApp {
				paused = append(paused, deliver(t, s, now, false, c)...)
			} else {
				deliver(t, s, now, true, c)
			}
		}
		if len(paused) != 1 || paused[0] != nApp {
			t.Fatalf("want the first application paused, got %v", paused)
		}
		later := now.Add(48 * time.Hour) // past every retry
		if cs := claimReq(t, s, later, 100); len(cs) != 0 {
			t.Fatalf("a paused application's backlog was claimed: %v", bodies(cs))
		}
		if _, err := s.EnqueueNotifications(ctx, later, func() notify.Message {
			m := msg("b-late", `{"b":"late"}`)
			m.ClientID = "n-client-2"
			return m
		}()); err != nil {
			t.Fatal(err)
		}
		if got := bodies(claimReq(t, s, later, 100)); len(got) != 1 || !got[`{"b":"late"}`] {
			t.Fatalf("behind a paused backlog: want the other application's new one, got %v", got)
		}
		if _, err := s.ResumeNotifications(ctx, "n-client", later); err != nil {
			t.Fatal(err)
		}
		if cs := claimReq(t, s, later, 100); len(cs) != 20 || countApp(cs, nApp) != 20 {
			t.Fatalf("after the resume: want the first application's 20, got %d", len(cs))
		}
	})
}

func countApp(cs []notify.Claim, app string) int {
	n := 0
	for _, c := range cs {
		if c.ApplicationID == app {
			n++
		}
	}
	return n
}
