package alias

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/bankrail/bankrail/internal/iso"
)

// bankCodeLength is how many leading characters of a country's BBAN name
// the bank (and branch): an alias keeps them from its account's IBAN, so
// that it is an IBAN of the same bank. Countries not listed keep 4.
var bankCodeLength = map[string]int{
	"AT": 5, "BE": 3, "BG": 8, "CH": 5, "CY": 8, "CZ": 4, "DE": 8, "DK": 4, "EE": 2, "ES": 8, "FI": 3, "FR": 10,
	"GB": 10, "GR": 7, "HR": 7, "HU": 7, "IE": 10, "IS": 4, "IT": 11, "LI": 5, "LT": 5, "LU": 3, "LV": 4, "MC": 10,
	"MT": 9, "NL": 4, "NO": 4, "PL": 8, "PT": 8, "RO": 4, "SE": 3, "SI": 5, "SK": 4, "SM": 11,
}

// minFreeDigits is how many digits an alias must be free to choose; with
// fewer after the bank code, every digit of the BBAN is chosen.
const minFreeDigits = 6

// NewIBAN is the virtual IBAN of alias seq of order orderID on the account
// whose IBAN is accountIBAN (a valid, normalised IBAN): the same country,
// length and bank code as the account's, the other digits of the BBAN
// drawn from a hash of (order, seq, salt) and letters kept where the
// account's BBAN has letters, with check digits that pass mod-97. The same
// arguments give the same IBAN, so a retried batch issues the same ones;
// a caller that finds one taken asks again with the next salt.
func NewIBAN(accountIBAN, orderID string, seq, salt int) (string, error) {
	if iso.CheckIBAN(accountIBAN) != iso.IBANOK {
		return "", fmt.Errorf("alias: the account's IBAN %q is not valid", accountIBAN)
	}
	country, bban := accountIBAN[:2], []byte(accountIBAN[4:])
	free := freeDigits(country, bban)
	if len(free) == 0 {
		return "", fmt.Errorf("alias: the IBAN %s has no digits to vary", accountIBAN)
	}
	d := digits{seed: fmt.Sprintf("%s|%d|%d", orderID, seq, salt)}
	for _, i := range free {
		bban[i] = '0' + d.next()
	}
	iban := iso.MakeIBAN(country, string(bban))
	if iban == accountIBAN {
		return NewIBAN(accountIBAN, orderID, seq, salt+1<<20) // the account's own: never an alias
	}
	return iban, nil
}

// freeDigits are the positions of bban, the BBAN of an account in
// country, that its aliases choose: its digits after the bank code, or all
// of its digits when fewer than minFreeDigits follow the bank code.
func freeDigits(country string, bban []byte) []int {
	keep, ok := bankCodeLength[country]
	if !ok {
		keep = 4
	}
	var free []int
	for i, c := range bban {
		if c >= '0' && c <= '9' && i >= keep {
			free = append(free, i)
		}
	}
	if len(free) < minFreeDigits {
		free = free[:0]
		for i, c := range bban {
			if c >= '0' && c <= '9' {
				free = append(free, i)
			}
		}
	}
	return free
}

// CouldBeAliasOf reports whether iban (normalised) has the shape of an
// alias of the account whose IBAN is accountIBAN: the same country and
// length, and the same characters wherever NewIBAN keeps the account's
// (the bank code, letters). When it is false, iban is no alias of that
// account, and no look-up is needed to know it.
func CouldBeAliasOf(iban, accountIBAN string) bool {
	if len(iban) != len(accountIBAN) || len(iban) < 5 || iban[:2] != accountIBAN[:2] {
		return false
	}
	bban, accountBBAN := iban[4:], []byte(accountIBAN[4:])
	free := freeDigits(accountIBAN[:2], accountBBAN)
	next := 0
	for i := range accountBBAN {
		if next < len(free) && free[next] == i {
			next++
			if bban[i] < '0' || bban[i] > '9' {
				return false
			}
			continue
		}
		if bban[i] != accountBBAN[i] {
			return false
		}
	}
	return true
}

// digits is a stream of decimal digits from SHA-256 of seed and a counter.
type digits struct {
	seed    string
	block   [sha256.Size]byte
	pos     int
	counter uint64
	started bool
}

// next returns the next digit, 0..9, evenly (bytes of 250 and above are
// skipped, so that no digit is more likely than another).
func (d *digits) next() byte {
	for {
		if !d.started || d.pos == len(d.block) {
			var n [8]byte
			binary.BigEndian.PutUint64(n[:], d.counter)
			d.block = sha256.Sum256(append([]byte(d.seed+"|"), n[:]...))
			d.counter++
			d.pos, d.started = 0, true
		}
		b := d.block[d.pos]
		d.pos++
		if b < 250 {
			return b % 10
		}
	}
}
