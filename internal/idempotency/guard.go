package idempotency

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
)

// Keys claims and releases keys, each in a transaction of its own (the
// store implements it). Claims of one key serialise in the database, on any
// number of instances.
type Keys interface {
	// Claim inserts the key as pending, or applies Decide to the stored one
	// (taking it over when Decide says so), atomically.
	Claim(ctx context.Context, c Claim) (ClaimResult, error)
	// Release forgets a pending key still held with t.Token.
	Release(ctx context.Context, t Ticket) error
	// Purge deletes up to limit keys that expired before now (and are not
	// in flight); it returns how many.
	Purge(ctx context.Context, now time.Time, limit int) (int, error)
	// Extend moves the lease of a pending key still held with t.Token to
	// until (the holder's heartbeat); held is false when the key is no
	// longer pending under that token (completed, released or taken over).
	Extend(ctx context.Context, t Ticket, until time.Time) (held bool, err error)
}

// Completer stores a finished request's result under its key inside the
// transaction of the change the request made (the store's unit of work
// implements it). It fails with IDEMPOTENCY_CONFLICT when the key is no
// longer held with t.Token (taken over after the lease ran out).
type Completer interface {
	Complete(ctx context.Context, t Ticket, r Result) error
}

// Config are the settings of keys.
type Config struct {
	TTL    time.Duration // how long keys are remembered
	Strict bool          // every reuse of a remembered key is a conflict
	// Lease is how long a key stays in flight after its holder's last
	// heartbeat (default idempotency.Lease, 15 s).
	Lease time.Duration
	// Heartbeat is how often (real time) a holder renews its lease while
	// its request runs (default Lease/3, at most Lease/2).
	Heartbeat time.Duration
	// Log receives the heartbeats' failures (default: discarded).
	Log *slog.Logger
}

// withDefaults fills the unset settings.
func (c Config) withDefaults() Config {
	if c.Lease <= 0 {
		c.Lease = Lease
	}
	if c.Heartbeat <= 0 || c.Heartbeat > c.Lease/2 {
		c.Heartbeat = c.Lease / 3
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return c
}

// Guard runs creating use cases under keys.
type Guard struct {
	keys  Keys
	clock clock.Clock
	cfg   Config
}

// NewGuard returns a guard over keys, with time from clk.
func NewGuard(keys Keys, clk clock.Clock, cfg Config) *Guard {
	return &Guard{keys: keys, clock: clk, cfg: cfg.withDefaults()}
}

// Request is one creating request under a key.
type Request struct {
	CustomerID  string // keys are scoped to the customer
	Key         string // empty: no idempotency
	Fingerprint string // Fingerprint of the request
	Noun        string // what the request creates, for messages: "payment", "refund"
	// OneTransaction says that the work writes nothing outside its one unit
	// of work and completes its ticket in it. A key seen for the first time
	// (the common case) then costs no transaction of its own: the work gets
	// a Fresh ticket, whose completion stores the key. Only when the key is
	// already stored (a retry, a conflict, a key in flight) does Do claim it
	// first, as without this.
	OneTransaction bool
}

// ErrKeyStored is what a Completer answers for a Fresh ticket whose key is
// stored already.
var ErrKeyStored = errors.New("idempotency: the key is stored already")

// Work does a creating use case. When t is not nil, it must complete t
// with its result inside the use case's transaction (Completer), so that the
// result is kept if and only if the change is.
type Work func(ctx context.Context, t *Ticket) (Result, error)

// Do runs work under r's key. Without a key it just runs work. With one, a
// repeat of a finished request returns the kept result with replayed true,
// and a different request, or one still running, is IDEMPOTENCY_CONFLICT.
// When work fails the key is released at once, so that the client may retry.
func (g *Guard) Do(ctx context.Context, r Request, work Work) (res Result, replayed bool, err error) {
	if r.Key == "" {
		res, err = work(ctx, nil)
		return res, false, err
	}
	now, err := clock.For(ctx, g.clock, r.CustomerID) // the key expires on its customer's (sandbox) clock
	if err != nil {
		return Result{}, false, err
	}
	now = now.UTC().Truncate(time.Microsecond)
	c := Claim{CustomerID: r.CustomerID, Key: r.Key, RequestHash: r.Fingerprint, Token: newToken(),
		Now: now, TTL: g.cfg.TTL, Lease: g.cfg.Lease, Strict: g.cfg.Strict}
	if r.OneTransaction {
		fresh := c
		res, err := work(ctx, &Ticket{CustomerID: c.CustomerID, Key: c.Key, Token: c.Token, Fresh: &fresh})
		if !errors.Is(err, ErrKeyStored) {
			return res, false, err // done, or failed with nothing stored: nothing to release
		}
		// The key is known: decide as for any stored key (the work's unit of
		// work rolled back).
	}
	claimed, err := g.keys.Claim(ctx, c)
	if err != nil {
		return Result{}, false, fmt.Errorf("claim idempotency key: %w", err)
	}
	if claimed.Decision != DecisionClaimed {
		res, err := replayOrConflict(claimed, r.Noun)
		return res, err == nil, err
	}
	t := &Ticket{CustomerID: c.CustomerID, Key: c.Key, Token: c.Token}
	stop := g.heartbeat(ctx, *t)
	res, err = work(ctx, t)
	stop()
	if err != nil {
		// Let the client retry with the same key at once. A failed release
		// only delays that until the lease runs out.
		if rerr := g.keys.Release(context.WithoutCancel(ctx), *t); rerr != nil {
			err = fmt.Errorf("%w (and releasing the idempotency key failed: %v)", err, rerr)
		}
		return Result{}, false, err
	}
	return res, false, nil
}

// replayOrConflict turns a claim that met a stored key into the answer.
func replayOrConflict(c ClaimResult, noun string) (Result, error) {
	switch c.Decision {
	case DecisionReplay:
		return c.Record.Result, nil
	case DecisionMismatch:
		return Result{}, errs.E(errs.IdempotencyConflict,
			"The Idempotency-Key was already used with a different request; use a new key for a new %s.", noun)
	case DecisionInFlight:
		e := errs.E(errs.IdempotencyConflict,
			"A request with this Idempotency-Key is still being processed; retry after %d s to get its result.", int(RetryAfter/time.Second))
		e.RetryAfter = RetryAfter
		return Result{}, e
	default:
		return Result{}, errs.E(errs.IdempotencyConflict,
			"The Idempotency-Key was already used; this service is set to refuse every reuse of a key.")
	}
}

// PurgeBatch is how many expired keys one Purge call deletes.
const PurgeBatch = 1000

// PurgeExpired forgets every key that expired on the clock, in batches, so
// the table holds about a TTL's worth of keys. It returns how many. It
// compares with the base time: a sandbox clock is never behind it, so what
// is expired on the base time is expired on every tenant's clock (a key
// expired on its tenant's clock but not yet purged is already treated as
// forgotten by Do).
func (g *Guard) PurgeExpired(ctx context.Context) (int, error) {
	total := 0
	for ctx.Err() == nil {
		n, err := g.keys.Purge(ctx, clock.Base(g.clock), PurgeBatch) // basetime: a purge of every tenant's keys; an advanced tenant's go when the base time passes their expiry
		total += n
		if err != nil || n < PurgeBatch {
			return total, err
		}
	}
	return total, ctx.Err()
}

// ErrTakenOver is what a Completer answers when the key is no longer held:
// another request took it over after this one took too long, or the claim
// was lost with an asynchronous primary in a failover. Nothing of this
// request was kept; it carries Retry-After, so that a client retries and
// gets the other request's result or claims the key afresh.
func ErrTakenOver() error {
	e := errs.E(errs.IdempotencyConflict,
		"The Idempotency-Key was taken over by another request after this one took too long; retry to get its result.")
	e.RetryAfter = RetryAfter
	return e
}

// newToken is a random holder token.
func newToken() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}
