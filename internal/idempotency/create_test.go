package idempotency

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
)

// memUnit is a unit of work over memKeys: it completes tickets, and its
// completions count only when it commits (fn returns nil).
type memUnit struct {
	keys    *memKeys
	pending []func()
}

func (u *memUnit) Idempotency() Completer { return u }

func (u *memUnit) Complete(_ context.Context, t Ticket, r Result) error {
	u.pending = append(u.pending, func() { u.keys.complete(t, r) })
	return nil
}

// Create: the work runs in one unit of work that completes the key, a
// repeat is a replay of the kept body, a failed work keeps nothing (the
// key is free again), and without a key the work just runs.
func TestCreate(t *testing.T) {
	t.Parallel()
	keys := &memKeys{recs: map[string]Record{}}
	g := NewGuard(keys, clock.NewFake(time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)), Config{TTL: time.Hour})
	units := 0
	inTx := func(_ context.Context, fn func(*memUnit) error) error {
		units++
		u := &memUnit{keys: keys}
		if err := fn(u); err != nil {
			return err // rolled back: nothing completed
		}
		for _, commit := range u.pending {
			commit()
		}
		return nil
	}
	ctx := context.Background()
	req := Request{CustomerID: "c1", Key: "k1", Fingerprint: "f1", Noun: "payout"}
	boom := errors.New("boom")
	fails := func(*memUnit) (Result, error) { return Result{}, boom }
	made := func(body string) func(*memUnit) (Result, error) {
		return func(*memUnit) (Result, error) { return Result{ResourceID: "id-" + body, Body: []byte(body)}, nil }
	}

	if _, err := Create(ctx, g, req, inTx, fails); !errors.Is(err, boom) {
		t.Fatalf("failed work: %v", err)
	}
	if len(keys.released) != 1 || len(keys.recs) != 0 {
		t.Fatalf("after a failure the key is released: %+v %+v", keys.released, keys.recs)
	}
	got, err := Create(ctx, g, req, inTx, made("first"))
	if err != nil || got.Replayed || got.ResourceID != "id-first" || string(got.Body) != "first" || !keys.recs["k1"].Done {
		t.Fatalf("first: %+v %v %+v", got, err, keys.recs["k1"])
	}
	got, err = Create(ctx, g, req, inTx, made("second"))
	if err != nil || !got.Replayed || got.ResourceID != "id-first" || string(got.Body) != "first" || units != 2 {
		t.Fatalf("replay: %+v %v (units %d)", got, err, units)
	}
	got, err = Create(ctx, g, Request{CustomerID: "c1", Noun: "payout"}, inTx, made("keyless"))
	if err != nil || got.Replayed || string(got.Body) != "keyless" || units != 3 || len(keys.recs) != 1 {
		t.Fatalf("without a key: %+v %v (units %d, keys %d)", got, err, units, len(keys.recs))
	}
}
