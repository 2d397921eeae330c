package auth

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"sync"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
)

// KeyRing holds the signing keys of every instance, read from the store.
// The newest key signs; every unretired key verifies. A kid this instance
// has not seen yet (another instance rotated) triggers a reload, at most once
// per second so that forged kids cannot hammer the database.
type KeyRing struct {
	store Store
	clock clock.Clock

	mu         sync.RWMutex
	keys       map[string]ed25519.PublicKey
	signer     ed25519.PrivateKey
	signerKID  string
	order      []string  // kids, oldest first
	lastMissAt time.Time // last reload caused by an unknown kid
}

// NewKeyRing returns an empty key ring; call Load.
func NewKeyRing(store Store, clk clock.Clock) *KeyRing {
	return &KeyRing{store: store, clock: clk, keys: map[string]ed25519.PublicKey{}}
}

// Load reads the keys, creating the first one when there is none.
func (r *KeyRing) Load(ctx context.Context) error {
	if err := r.Refresh(ctx); err != nil {
		return err
	}
	if kid, _ := r.signingKey(); kid != "" {
		return nil
	}
	_, err := r.Rotate(ctx)
	return err
}

func (r *KeyRing) install(keys []SigningKey) error {
	pub := make(map[string]ed25519.PublicKey, len(keys))
	order := make([]string, 0, len(keys))
	var signer ed25519.PrivateKey
	var signerKID string
	for _, k := range keys {
		seed, err := base64.StdEncoding.DecodeString(k.PrivateKey)
		if err != nil || len(seed) != ed25519.SeedSize {
			return fmt.Errorf("signing key %s is corrupt", k.KID)
		}
		priv := ed25519.NewKeyFromSeed(seed)
		pub[k.KID] = priv.Public().(ed25519.PublicKey)
		order = append(order, k.KID)
		signer, signerKID = priv, k.KID // keys come oldest first: the last one signs
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys, r.order, r.signer, r.signerKID = pub, order, signer, signerKID
	return nil
}

// Refresh re-reads the keys, so that a key rotated by another instance or by
// `bankrail keys rotate` signs here too.
func (r *KeyRing) Refresh(ctx context.Context) error {
	keys, err := r.store.ListSigningKeys(ctx)
	if err != nil {
		return fmt.Errorf("list signing keys: %w", err)
	}
	if len(keys) == 0 {
		return nil
	}
	return r.install(keys)
}

// Rotate creates a new signing key, which signs from now on, and retires
// keys that were superseded long enough ago that no live token uses them.
// It returns the new kid.
func (r *KeyRing) Rotate(ctx context.Context) (string, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", fmt.Errorf("generate signing key: %w", err)
	}
	now := clock.Base(r.clock) // basetime: signing keys belong to no tenant
	kid := now.Format("20060102T150405Z") + "-" + base64.RawURLEncoding.EncodeToString(priv.Public().(ed25519.PublicKey)[:6])
	k := SigningKey{KID: kid, Algorithm: "EdDSA", PrivateKey: base64.StdEncoding.EncodeToString(priv.Seed()), CreatedAt: now}
	if err := r.store.CreateSigningKey(ctx, k); err != nil {
		return "", fmt.Errorf("store signing key: %w", err)
	}
	keys, err := r.store.ListSigningKeys(ctx)
	if err != nil {
		return "", fmt.Errorf("list signing keys: %w", err)
	}
	return kid, r.install(keys)
}

// RetireSuperseded retires keys whose successor has signed for longer than
// ttl (the access-token lifetime), so that no live token needs them.
func (r *KeyRing) RetireSuperseded(ctx context.Context, ttl time.Duration) (int, error) {
	keys, err := r.store.ListSigningKeys(ctx)
	if err != nil || len(keys) < 2 {
		return 0, err
	}
	// A key can go once the key after it has existed for ttl.
	var cutoff time.Time
	now := clock.Base(r.clock) // basetime: signing keys belong to no tenant
	for i := 1; i < len(keys); i++ {
		if now.Sub(keys[i].CreatedAt) >= ttl {
			cutoff = keys[i].CreatedAt
		}
	}
	if cutoff.IsZero() {
		return 0, nil
	}
	n, err := r.store.RetireSigningKeys(ctx, cutoff, now)
	if err != nil {
		return 0, fmt.Errorf("retire signing keys: %w", err)
	}
	keys, err = r.store.ListSigningKeys(ctx)
	if err != nil {
		return n, err
	}
	return n, r.install(keys)
}

// signingKey returns the key that signs new tokens.
func (r *KeyRing) signingKey() (string, ed25519.PrivateKey) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.signerKID, r.signer
}

// publicKey returns the key for kid. An unknown kid (another instance may
// have rotated) triggers a reload, at most one per second.
func (r *KeyRing) publicKey(kid string) (ed25519.PublicKey, bool) {
	r.mu.RLock()
	k, ok := r.keys[kid]
	r.mu.RUnlock()
	if ok {
		return k, true
	}
	r.mu.Lock()
	reload := time.Since(r.lastMissAt) > time.Second // basetime: a rate of reloads, in real time
	if reload {
		r.lastMissAt = time.Now() // basetime: the rate above
	}
	r.mu.Unlock()
	if !reload {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if keys, err := r.store.ListSigningKeys(ctx); err == nil {
		_ = r.install(keys)
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	k, ok = r.keys[kid]
	return k, ok
}

// JWK is one public key in a JSON Web Key Set.
type JWK struct {
	KTY string
	CRV string
	X   string
	KID string
	ALG string
	USE string
}

// JWKS returns the published public keys, oldest first.
func (r *KeyRing) JWKS() []JWK {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]JWK, 0, len(r.order))
	for _, kid := range r.order {
		out = append(out, JWK{KTY: "OKP", CRV: "Ed25519", X: base64.RawURLEncoding.EncodeToString(r.keys[kid]),
			KID: kid, ALG: "EdDSA", USE: "sig"})
	}
	return out
}
