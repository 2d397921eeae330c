package channel

import (
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"strings"

	"golang.org/x/crypto/sha3"
)

// Address is the deposit address of channel id on network n: deterministic
// per channel, in the network's format. EVM networks get 0x and 40 hex
// digits with the EIP-55 mixed-case checksum (the last 20 bytes of a
// Keccak-256 of the channel id); SOL gets the base58 text of a 32-byte key
// (a SHA-256 of the channel id).
func Address(n Network, id string) string {
	if n == SOL {
		h := sha256.Sum256([]byte("bankrail/channel/sol/" + id))
		return Base58(h[:])
	}
	k := keccak256([]byte("bankrail/channel/evm/" + id))
	return ChecksumEVM(hex.EncodeToString(k[12:]))
}

func keccak256(b []byte) []byte {
	h := sha3.NewLegacyKeccak256()
	h.Write(b)
	return h.Sum(nil)
}

// ChecksumEVM is the EIP-55 form of a 40-hex-digit address (with or
// without 0x): a letter is upper case when the matching nibble of the
// Keccak-256 of the lower-case hex is 8 or more.
func ChecksumEVM(addr string) string {
	lower := strings.ToLower(strings.TrimPrefix(addr, "0x"))
	h := keccak256([]byte(lower))
	out := []byte(lower)
	for i, c := range out {
		nibble := h[i/2] >> 4
		if i%2 == 1 {
			nibble = h[i/2] & 0x0f
		}
		if c >= 'a' && c <= 'f' && nibble >= 8 {
			out[i] = c - 'a' + 'A'
		}
	}
	return "0x" + string(out)
}

// ValidEVM reports whether s is 0x + 40 hex digits with a correct EIP-55
// checksum.
func ValidEVM(s string) bool {
	if len(s) != 42 || !strings.HasPrefix(s, "0x") {
		return false
	}
	if _, err := hex.DecodeString(s[2:]); err != nil {
		return false
	}
	return ChecksumEVM(s) == s
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// Base58 is the Bitcoin-alphabet base58 text of b (as Solana writes keys):
// each leading zero byte is a leading '1'.
func Base58(b []byte) string {
	n := new(big.Int).SetBytes(b)
	radix, mod := big.NewInt(58), new(big.Int)
	var out []byte
	for n.Sign() > 0 {
		n.QuoRem(n, radix, mod)
		out = append(out, base58Alphabet[mod.Int64()])
	}
	for _, c := range b {
		if c != 0 {
			break
		}
		out = append(out, '1')
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

// DecodeBase58 is the inverse of Base58 (ok false for a character outside
// the alphabet).
func DecodeBase58(s string) ([]byte, bool) {
	n, radix := new(big.Int), big.NewInt(58)
	zeros := 0
	for i := 0; i < len(s) && s[i] == '1'; i++ {
		zeros++
	}
	for _, c := range []byte(s) {
		d := strings.IndexByte(base58Alphabet, c)
		if d < 0 {
			return nil, false
		}
		n.Mul(n, radix).Add(n, big.NewInt(int64(d)))
	}
	return append(make([]byte, zeros), n.Bytes()...), true
}

// ValidSOL reports whether s is the base58 text of a 32-byte key.
func ValidSOL(s string) bool {
	b, ok := DecodeBase58(s)
	return ok && len(b) == 32 && Base58(b) == s
}
