package idempotency

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
)

// memKeys keeps keys in memory, applying Decide as the store does.
type memKeys struct {
	recs     map[string]Record
	released []Ticket
}

func (m *memKeys) Claim(_ context.Context, c Claim) (ClaimResult, error) {
	if rec, ok := m.recs[c.Key]; ok {
		if d := Decide(rec, c); d != DecisionClaimed {
			return ClaimResult{Decision: d, Record: rec}, nil
		}
	}
	m.recs[c.Key] = Record{CustomerID: c.CustomerID, Key: c.Key, RequestHash: c.RequestHash, Token: c.Token,
		CreatedAt: c.Now, ExpiresAt: c.Now.Add(c.TTL), LockedUntil: c.Now.Add(c.Lease)}
	return ClaimResult{Decision: DecisionClaimed}, nil
}

func (m *memKeys) Release(_ context.Context, t Ticket) error {
	m.released = append(m.released, t)
	delete(m.recs, t.Key)
	return nil
}

func (m *memKeys) Purge(_ context.Context, now time.Time, _ int) (int, error) {
	n := 0
	for k, r := range m.recs {
		if !now.Before(r.ExpiresAt) {
			delete(m.recs, k)
			n++
		}
	}
	return n, nil
}

// complete stands for the Completer of the use case's unit of work.
func (m *memKeys) complete(t Ticket, r Result) {
	rec := m.recs[t.Key]
	rec.Done, rec.Result = true, r
	m.recs[t.Key] = rec
}

func TestGuard(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC))
	keys := &memKeys{recs: map[string]Record{}}
	g := NewGuard(keys, clk, Config{TTL: time.Hour})
	ctx := context.Background()
	runs := 0
	work := func(body string) Work {
		return func(_ context.Context, tk *Ticket) (Result, error) {
			runs++
			r := Result{ResourceID: "id-" + body, Body: []byte(body)}
			if tk != nil {
				keys.complete(*tk, r)
			}
			return r, nil
		}
	}
	req := Request{CustomerID: "c1", Key: "k1", Fingerprint: "f1", Noun: "refund"}

	res, replayed, err := g.Do(ctx, req, work("first"))
	if err != nil || replayed || string(res.Body) != "first" || runs != 1 {
		t.Fatalf("first: %+v %v %v runs %d", res, replayed, err, runs)
	}
	res, replayed, err = g.Do(ctx, req, work("second"))
	if err != nil || !replayed || string(res.Body) != "first" || res.ResourceID != "id-first" || runs != 1 {
		t.Fatalf("replay: %+v %v %v runs %d", res, replayed, err, runs)
	}
	other := req
	other.Fingerprint = "f2"
	if _, _, err := g.Do(ctx, other, work("x")); !errs.Is(err, errs.IdempotencyConflict) || runs != 1 {
		t.Fatalf("different request: %v, runs %d", err, runs)
	} else if e := (*errs.Error)(nil); errors.As(err, &e) && e.RetryAfter != 0 {
		t.Fatalf("a mismatch is not worth retrying: %+v", e)
	}

	// A failed work releases its key at once: the same key works again.
	boom := errors.New("boom")
	failing := Request{CustomerID: "c1", Key: "k2", Fingerprint: "f1"}
	if _, _, err := g.Do(ctx, failing, func(context.Context, *Ticket) (Result, error) { return Result{}, boom }); !errors.Is(err, boom) {
		t.Fatalf("failing work: %v", err)
	}
	if len(keys.released) != 1 || keys.released[0].Key != "k2" {
		t.Fatalf("released %v", keys.released)
	}
	if _, replayed, err := g.Do(ctx, failing, work("retry")); err != nil || replayed {
		t.Fatalf("retry after a failure: %v %v", replayed, err)
	}

	// In flight: claimed but not completed.
	keys.recs["k3"] = Record{Key: "k3", RequestHash: "f1", ExpiresAt: clk.Now().Add(time.Hour), LockedUntil: clk.Now().Add(Lease)}
	var e *errs.Error
	if _, _, err := g.Do(ctx, Request{Key: "k3", Fingerprint: "f1"}, work("y")); !errors.As(err, &e) || e.RetryAfter != RetryAfter {
		t.Fatalf("in flight: %v", err)
	}

	// Without a key the work just runs, with no ticket.
	var got *Ticket = &Ticket{}
	if _, _, err := g.Do(ctx, Request{}, func(_ context.Context, tk *Ticket) (Result, error) { got = tk; return Result{}, nil }); err != nil || got != nil {
		t.Fatalf("no key: ticket %v, %v", got, err)
	}

	// The key expires on the clock: the same key is a new request then,
	// and purging forgets every expired key.
	clk.Advance(time.Hour)
	if n, err := g.PurgeExpired(ctx); err != nil || n != 3 || len(keys.recs) != 0 {
		t.Fatalf("purge: %d %v, left %v", n, err, keys.recs)
	}
	if _, replayed, err := g.Do(ctx, req, work("later")); err != nil || replayed {
		t.Fatalf("after the TTL: %v %v", replayed, err)
	}
}

func TestFingerprintSeparatesParts(t *testing.T) {
	t.Parallel()
	if Fingerprint("op", []byte("ab"), []byte("c")) == Fingerprint("op", []byte("a"), []byte("bc")) {
		t.Fatal("parts run together")
	}
	if first, again := Fingerprint("op", []byte("a")), Fingerprint("op", []byte("a")); first != again {
		t.Fatal("not deterministic")
	}
}

func (m *memKeys) Extend(_ context.Context, t Ticket, until time.Time) (bool, error) {
	rec, ok := m.recs[t.Key]
	if !ok || rec.Token != t.Token || rec.Done {
		return false, nil
	}
	rec.LockedUntil = until
	m.recs[t.Key] = rec
	return true, nil
}
