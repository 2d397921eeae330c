package payment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
)

// Idempotency-Key rules.
const (
	MaxIdempotencyKeyLength = 64
	// IdempotencyLease is how long a claimed key stays "in flight" before
	// another request may take it over (its holder is presumed dead).
	IdempotencyLease = 30 * time.Second
	// IdempotencyRetryAfter is what an in-flight conflict tells the client.
	IdempotencyRetryAfter = time.Second
)

// Claim asks to hold an idempotency key for one request.
type Claim struct {
	CustomerID  string
	Key         string
	RequestHash string // fingerprint of the request (Fingerprint)
	Token       string // random; identifies this holder
	Now         time.Time
	TTL         time.Duration // how long the key is remembered
	Lease       time.Duration // how long the holder may take
	Strict      bool          // every reuse of a remembered key is a conflict
}

// KeyRecord is a remembered idempotency key.
type KeyRecord struct {
	CustomerID     string
	Key            string
	RequestHash    string
	Token          string
	Done           bool // the response is stored
	ResponseStatus int
	ResponseBody   []byte
	ResourceID     string
	CreatedAt      time.Time
	ExpiresAt      time.Time
	LockedUntil    time.Time
}

// Decision is what a claim on a key leads to.
type Decision int

// Decisions of Decide.
const (
	DecisionClaimed  Decision = iota // the key is (now) held by this request
	DecisionReplay                   // same request, finished: replay its response
	DecisionMismatch                 // the key was used for a different request
	DecisionInFlight                 // the same request is still running elsewhere
	DecisionUsed                     // strict mode: the key was used already
)

// Decide says what a claim meets when the key is already stored. A key past
// its expiry, or a pending one whose holder's lease ran out, is taken over.
func Decide(existing KeyRecord, c Claim) Decision {
	if !c.Now.Before(existing.ExpiresAt) {
		return DecisionClaimed
	}
	switch {
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
	Record   KeyRecord
}

// Completion stores a finished request's response under its key, in the
// same transaction as the change the request made.
type Completion struct {
	CustomerID string
	Key        string
	Token      string
	Response   Response
}

// Fingerprint identifies a request for idempotency: the operation, the
// initiation channel and the normalised body, so that formatting, key order
// and unknown fields do not matter.
func Fingerprint(operation string, ch Channel, r CreateRequest) string {
	body, _ := json.Marshal(r) // plain structs: cannot fail
	h := sha256.New()
	h.Write([]byte(operation))
	h.Write([]byte{0})
	h.Write([]byte(ch))
	h.Write([]byte{0})
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}
