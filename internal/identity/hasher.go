package identity

import (
	"context"
	"fmt"
	"sync"
)

// Hasher hashes and verifies passwords and client secrets with argon2id, at
// most a fixed number at a time. Each argon2id computation holds its Memory
// parameter for its whole run, so the bound on concurrency is the bound on
// memory: 32 sign-ins at once queue for a slot instead of allocating 32
// times the cost.
type Hasher struct {
	params HashParams
	slots  chan struct{}
	dummy  func() (string, error)
}

// NewHasher returns a hasher that hashes with p and runs at most concurrency
// computations at once (at least one).
func NewHasher(p HashParams, concurrency int) *Hasher {
	h := &Hasher{params: p, slots: make(chan struct{}, max(concurrency, 1))}
	h.dummy = sync.OnceValues(func() (string, error) { return HashSecret(RandomSecret(16), p) })
	return h
}

// Params are the cost parameters of new hashes.
func (h *Hasher) Params() HashParams { return h.params }

// Hash hashes secret once a slot is free.
func (h *Hasher) Hash(ctx context.Context, secret string) (string, error) {
	if err := h.acquire(ctx); err != nil {
		return "", err
	}
	defer h.release()
	return HashSecret(secret, h.params)
}

// Verify reports whether secret matches hash, once a slot is free. An empty
// hash stands for "nobody": a hash of a random secret at the current cost is
// verified instead, so that the answer and its timing are those of a wrong
// secret for a known client or user.
func (h *Hasher) Verify(ctx context.Context, hash, secret string) (bool, error) {
	matchable := hash != ""
	if !matchable {
		var err error
		if hash, err = h.dummyHash(ctx); err != nil {
			return false, err
		}
	}
	if err := h.acquire(ctx); err != nil {
		return false, err
	}
	defer h.release()
	ok, err := VerifySecret(hash, secret)
	return ok && matchable, err
}

// dummyHash makes the stand-in hash on first need (not at start), in a slot
// like any other computation.
func (h *Hasher) dummyHash(ctx context.Context) (string, error) {
	if err := h.acquire(ctx); err != nil {
		return "", err
	}
	defer h.release()
	s, err := h.dummy()
	if err != nil {
		return "", fmt.Errorf("make the stand-in hash: %w", err)
	}
	return s, nil
}

func (h *Hasher) acquire(ctx context.Context) error {
	select {
	case h.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wait for a hashing slot: %w", ctx.Err())
	}
}

func (h *Hasher) release() { <-h.slots }
