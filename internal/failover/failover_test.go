//go:build failover

package failover_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/pgcluster"
)

// clients is how many clients stream requests (half on each instance).
const clients = 6

// TestFailoverSynchronous: with synchronous replication no answered
// request is lost, even when the standby had stopped receiving the WAL
// just before the primary died (its commits waited, unanswered).
func TestFailoverSynchronous(t *testing.T) {
	run(t, pgcluster.Options{Synchronous: true, ApplyDelay: time.Second})
}

// TestFailoverAsynchronous: with asynchronous replication what the standby
// had not received when the primary died is lost; the test reports it.
func TestFailoverAsynchronous(t *testing.T) {
	run(t, pgcluster.Options{ApplyDelay: time.Second})
}

func run(t *testing.T, opts pgcluster.Options) {
	c := pgcluster.Start(t, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := c.Exec(ctx, c.Primary(), `CREATE DATABASE bankrail`); err != nil {
		t.Fatal(err)
	}
	rc := newReceiver(t)
	a, urlA := instance(t, c.URL("bankrail"), rc.URL)
	_, urlB := instance(t, c.URL("bankrail"), rc.URL)
	tr := &answers{byStatus: map[int]int{}}
	setup := clientOf(t, urlA, tr)
	acct, err := setup.GetAccount(ctx, accountID)
	if err != nil {
		t.Fatal(err)
	}
	ack := newAcked()

	streamCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	streamErrs := make([]error, clients)
	for n := 0; n < clients; n++ {
		cl := clientOf(t, []string{urlA, urlB}[n%2], tr)
		wg.Add(1)
		go func() {
			defer wg.Done()
			streamErrs[n] = stream(streamCtx, n, cl, acct.IBAN, ack, opts.Synchronous)
		}()
	}
	wait := func(d time.Duration) { // while the clients stream
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
	}
	var outages []time.Duration
	var lost []string
	failover := func(round int) {
		wait(time.Second + rand.N(1500*time.Millisecond)) // a random moment of the stream
		old, standby := c.Primary(), c.Standbys()[0]
		// The standby stops receiving the WAL a moment before the primary
		// dies: the lag a real network has, which is what asynchronous
		// replication loses (recovery_min_apply_delay alone loses nothing:
		// a promotion replays what was received).
		resume, err := c.PauseReplication(ctx, standby)
		if err != nil {
			t.Fatal(err)
		}
		before := ack.count()
		wait(300 * time.Millisecond)
		killed := time.Now()
		if err := c.Kill(old); err != nil {
			t.Fatal(err)
		}
		resume()
		if err := c.Promote(standby); err != nil {
			t.Fatal(err)
		}
		promoted := time.Since(killed)
		for deadline := time.Now().Add(time.Minute); ; wait(20 * time.Millisecond) {
			s := ack.servedAgain(killed)
			if !s[0].IsZero() && !s[1].IsZero() {
				out := max(s[0].Sub(killed), s[1].Sub(killed))
				outages = append(outages, out)
				t.Logf("failover %d: promoted %.2fs after the kill; both instances answered a write again %.2fs after it (%d writes answered before the pause)",
					round, promoted.Seconds(), out.Seconds(), before)
				break
			}
			ack.mu.Lock()
			failed := ack.failed
			ack.mu.Unlock()
			if failed != nil {
				t.Fatalf("failover %d: a client stopped: %v", round, failed)
			}
			if time.Now().After(deadline) {
				t.Fatalf("failover %d: an instance answered no write for a minute after the kill (served again at %v)", round, s)
			}
		}
		wait(time.Second)
		if err := c.Rewind(old); err != nil {
			t.Fatal(err)
		}
	}
	failover(1)
	failover(2) // back to the first primary, rewound as the standby
	wait(time.Second)
	stop()
	wg.Wait()
	if err := errors.Join(streamErrs...); err != nil {
		t.Fatal(err)
	}
	lost = check(t, a, setup, rc, ack, opts.Synchronous)
	tr.mu.Lock()
	t.Logf("answers: %v, transport errors %d; acknowledged: %d payments, %d payins, %d refunds, %d payouts; lost %d %v",
		tr.byStatus, tr.transport, len(ack.payments), len(ack.payins), len(ack.refunds), len(ack.payouts), len(lost), lost)
	if tr.byStatus[500] > 0 {
		t.Errorf("%d answers were 500 (want 503 with Retry-After); the first: %s", tr.byStatus[500], tr.first500)
	}
	tr.mu.Unlock()
	if len(ack.lostSeen) > 0 {
		t.Logf("clients met %d losses: %v", len(ack.lostSeen), ack.lostSeen)
	}
	for i, o := range outages {
		t.Logf("UNAVAILABLE failover=%d seconds=%.3f", i+1, o.Seconds())
	}
}
