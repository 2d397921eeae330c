package identity

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// HashParams are the argon2id cost parameters.
type HashParams struct {
	Time    uint32
	Memory  uint32 // KiB
	Threads uint8
}

// DefaultHashParams are OWASP's first recommended argon2id setting (Password
// Storage Cheat Sheet): 19 MiB, 2 passes, 1 lane. See docs/decisions.md
// ("Hashing cost"): with the Hasher's bound on concurrency they keep sign-in
// memory small and fixed. Hashes made with other parameters (64 MiB before)
// keep verifying: the parameters travel in the PHC string.
var DefaultHashParams = HashParams{Time: 2, Memory: 19 * 1024, Threads: 1}

// PublicHashParams hash credentials that are published, and so protect
// nothing: the sandbox demo merchant's, printed in the README and the
// start banner. A memory-hard hash of them would only slow every start and
// every demo sign-in (docs/decisions.md, "Hashing cost").
var PublicHashParams = HashParams{Time: 1, Memory: 64, Threads: 1}

const saltLen, keyLen = 16, 32

// HashSecret hashes a password or client secret with argon2id and returns a
// PHC string ($argon2id$v=19$m=...,t=...,p=...$salt$hash).
func HashSecret(secret string, p HashParams) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("read salt: %w", err)
	}
	key := argon2.IDKey([]byte(secret), salt, p.Time, p.Memory, p.Threads, keyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.Memory, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

var errBadHash = errors.New("malformed argon2id hash")

// VerifySecret reports whether secret matches the PHC hash, in constant time.
func VerifySecret(hash, secret string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errBadHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errBadHash
	}
	var p HashParams
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads); err != nil {
		return false, errBadHash
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false, errBadHash
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil || len(want) == 0 {
		return false, errBadHash
	}
	got := argon2.IDKey([]byte(secret), salt, p.Time, p.Memory, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// RandomSecret returns a URL-safe random string with n bytes of entropy.
func RandomSecret(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand failed: %v", err)) // the OS entropy source is gone; nothing is safe
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
