// Package idempotency is the one mechanism behind every creating endpoint's
// Idempotency-Key: a key is claimed before the work, completed with the
// work's result in the same transaction as the work, and replayed, refused
// or reported in flight when it comes again. Keys are scoped to a customer,
// expire on the service clock and are shared by every instance through the
// store. It knows nothing of HTTP: the result it keeps is the domain's (the
// resource id and the representation the caller chose to keep), not a status
// code.
package idempotency

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// Rules of keys.
const (
	// MaxKeyLength is the longest key accepted.
	MaxKeyLength = 64
	// Lease is how long a claimed key stays "in flight" after its holder's
	// last heartbeat before another request may take it over (its holder is
	// presumed dead): Config.Lease when unset. The holder renews it every
	// Lease/3 while its request runs, so a long request keeps its key and a
	// killed instance's key is free again at most Lease later (issue 28).
	Lease = 15 * time.Second
	// RetryAfter is what an in-flight conflict tells the client to wait.
	RetryAfter = time.Second
)

// Claim asks to hold a key for one request.
type Claim struct {
	CustomerID  string
	Key         string
	RequestHash string // the request's fingerprint (Fingerprint)
	Token       string // random; identifies this holder
	Now         time.Time
	TTL         time.Duration // how long the key is remembered
	Lease       time.Duration // how long the holder may take
	Strict      bool          // every reuse of a remembered key is a conflict
}

// Result is what a finished request keeps under its key for replays: the
// resource it made and the representation it answered with.
type Result struct {
	ResourceID string
	Body       []byte
}

// Record is a remembered key.
type Record struct {
	CustomerID  string
	Key         string
	RequestHash string
	Token       string
	Done        bool   // Result is stored
	Result      Result // when Done
	CreatedAt   time.Time
	ExpiresAt   time.Time
	LockedUntil time.Time
}

// Decision is what a claim on a key leads to.
type Decision int

// Decisions of Decide.
const (
	DecisionClaimed  Decision = iota // the key is (now) held by this request
	DecisionReplay                   // same request, finished: replay its result
	DecisionMismatch                 // the key was used for a different request
	DecisionInFlight                 // the same request is still running elsewhere
	DecisionUsed                     // strict mode: the key was used already
)

// Decide says what a claim meets when the key is already stored. A key past
// its expiry, or a pending one whose holder's lease ran out, is taken over.
func Decide(existing Record, c Claim) Decision {
	if !c.Now.Before(existing.ExpiresAt) {
		return DecisionClaimed
	}
	switch {
	case c.Token != "" && existing.Token == c.Token && !existing.Done:
		// This claim's own, made before its answer was lost (the store
		// runs a claim again after a lost connection).
		return DecisionClaimed
	case c.Strict:
		return DecisionUsed
	case existing.RequestHash != c.RequestHash:
		return DecisionMismatch
	case existing.Done:
		return DecisionReplay
	case c.Now.Before(existing.LockedUntil):
		return DecisionInFlight
	}
	return DecisionClaimed
}

// ClaimResult is the outcome of a claim and, unless claimed, the record met.
type ClaimResult struct {
	Decision Decision
	Record   Record
}

// Ticket is a held key: the proof a request gives when it completes or
// releases it.
type Ticket struct {
	CustomerID string
	Key        string
	Token      string
	// Fresh, when set, is a key not stored yet (Request.OneTransaction):
	// Complete stores it, done, with the result, in the unit of work, so
	// that claim, change and completion are one transaction. It fails with
	// ErrKeyStored when the key is stored already (or by a concurrent
	// request that commits first); the unit of work then rolls back and the
	// request goes the two-phase way.
	Fresh *Claim
}

// Fingerprint identifies a request for idempotency: the operation and the
// parts that make the request what it is (e.g. the channel and the
// normalised body), so that formatting, key order and unknown fields do not
// matter. Parts are separated so that ("ab","c") and ("a","bc") differ.
func Fingerprint(operation string, parts ...[]byte) string {
	h := sha256.New()
	h.Write([]byte(operation))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}
