package idempotency

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
)

// With OneTransaction, a new key is stored by the work's own completion
// (no claim of its own); a key stored already makes that completion fail
// with ErrKeyStored and the request go the two-phase way: replay,
// conflict, or a takeover that runs the work with an ordinary ticket.
func TestGuardOneTransaction(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC))
	keys := &memKeys{recs: map[string]Record{}}
	g := NewGuard(keys, clk, Config{TTL: time.Hour})
	ctx := context.Background()
	var tickets []Ticket
	work := func(body string) Work {
		return func(_ context.Context, tk *Ticket) (Result, error) {
			tickets = append(tickets, *tk)
			r := Result{ResourceID: "id-" + body, Body: []byte(body)}
			if c := tk.Fresh; c != nil { // the Completer's insert of a done key: any stored row conflicts
				if _, ok := keys.recs[c.Key]; ok {
					return Result{}, ErrKeyStored
				}
				keys.recs[c.Key] = Record{CustomerID: c.CustomerID, Key: c.Key, RequestHash: c.RequestHash, Token: c.Token,
					Done: true, Result: r, CreatedAt: c.Now, ExpiresAt: c.Now.Add(c.TTL)}
				return r, nil
			}
			keys.complete(*tk, r)
			return r, nil
		}
	}
	req := Request{CustomerID: "c1", Key: "k1", Fingerprint: "f1", Noun: "payment", OneTransaction: true}
	res, replayed, err := g.Do(ctx, req, work("first"))
	if err != nil || replayed || string(res.Body) != "first" || len(tickets) != 1 || tickets[0].Fresh == nil ||
		tickets[0].Fresh.RequestHash != "f1" || tickets[0].Fresh.TTL != time.Hour {
		t.Fatalf("first: %+v %v %v, tickets %+v", res, replayed, err, tickets)
	}
	res, replayed, err = g.Do(ctx, req, work("second"))
	if err != nil || !replayed || string(res.Body) != "first" || len(tickets) != 2 {
		t.Fatalf("replay: %+v %v %v, %d runs", res, replayed, err, len(tickets))
	}
	other := req
	other.Fingerprint = "f2"
	if _, _, err := g.Do(ctx, other, work("x")); !errs.Is(err, errs.IdempotencyConflict) {
		t.Fatalf("another request under the key: %v", err)
	}
	// A failure stores nothing and releases nothing (nothing was claimed).
	boom := errors.New("boom")
	failing := Request{CustomerID: "c1", Key: "k2", Fingerprint: "f1", OneTransaction: true}
	if _, _, err := g.Do(ctx, failing, func(context.Context, *Ticket) (Result, error) { return Result{}, boom }); !errors.Is(err, boom) {
		t.Fatalf("failing work: %v", err)
	}
	if _, ok := keys.recs["k2"]; ok || len(keys.released) != 0 {
		t.Fatalf("a failed one-transaction request left %v, released %v", keys.recs["k2"], keys.released)
	}
	// An expired key not purged yet is taken over the two-phase way: the
	// fresh completion meets it, then the work runs with a claimed ticket.
	clk.Advance(2 * time.Hour)
	tickets = nil
	if _, replayed, err := g.Do(ctx, other, work("later")); err != nil || replayed || len(tickets) != 2 ||
		tickets[0].Fresh == nil || tickets[1].Fresh != nil || string(keys.recs["k1"].Result.Body) != "later" {
		t.Fatalf("after expiry: %v %v, tickets %+v", replayed, err, tickets)
	}
}
