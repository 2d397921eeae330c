package identity

import (
	"context"
	"errors"
	"testing"
)

func TestHasherHashesAndVerifies(t *testing.T) {
	t.Parallel()
	h := NewHasher(HashParams{Time: 1, Memory: 1024, Threads: 1}, 2)
	ctx := context.Background()
	hash, err := h.Hash(ctx, "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := h.Verify(ctx, hash, "correct horse"); err != nil || !ok {
		t.Fatalf("right secret: %v %v", ok, err)
	}
	if ok, err := h.Verify(ctx, hash, "wrong horse"); err != nil || ok {
		t.Fatalf("wrong secret: %v %v", ok, err)
	}
	// No hash stands for nobody: never a match, never an error.
	for _, secret := range []string{"", "correct horse"} {
		if ok, err := h.Verify(ctx, "", secret); err != nil || ok {
			t.Fatalf("stand-in hash with %q: %v %v", secret, ok, err)
		}
	}
}

// TestHasherWaitsForASlot takes the only slot, then shows that a
// verification waits for it (and gives up with its context) instead of
// running beside it.
func TestHasherWaitsForASlot(t *testing.T) {
	t.Parallel()
	h := NewHasher(HashParams{Time: 1, Memory: 1024, Threads: 1}, 1)
	hash, err := h.Hash(context.Background(), "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.Verify(ctx, hash, "correct horse"); !errors.Is(err, context.Canceled) {
		t.Fatalf("verify with every slot taken: %v, want it to wait and give up", err)
	}
	if _, err := h.Hash(ctx, "x"); !errors.Is(err, context.Canceled) {
		t.Fatalf("hash with every slot taken: %v", err)
	}
	h.release()
	if ok, err := h.Verify(context.Background(), hash, "correct horse"); err != nil || !ok {
		t.Fatalf("after release: %v %v", ok, err)
	}
}
