// Package pain writes ISO 20022 credit transfer initiations
// (pain.001.001.10: the transfers bankrail hands to its bank) and reads the
// bank's payment status reports (pain.002.001.11: accepted or rejected,
// per file, per payment information block and per transaction). It knows
// nothing of payouts, refunds, HTTP or SQL: an Instruction is one credit
// transfer, a Report is what the bank said of them.
package pain

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Limits of the SEPA rulebook on the texts of a transfer.
const (
	MaxName       = 70  // Nm of the debtor and the creditor
	MaxRemittance = 140 // RmtInf/Ustrd
	MaxID         = 35  // MsgId, PmtInfId, EndToEndId
)

// NotProvided is what a name that has no character left says (the SEPA
// rulebooks' convention for a value that is unknown).
const NotProvided = "NOTPROVIDED"

// special are the letters that do not decompose into a Latin letter and a
// mark, written as the Latin letters a German or Nordic bank would use.
var special = map[rune]string{
	'ß': "ss", 'ẞ': "SS", 'æ': "ae", 'Æ': "AE", 'œ': "oe", 'Œ': "OE", 'ø': "o", 'Ø': "O",
	'ł': "l", 'Ł': "L", 'đ': "d", 'Đ': "D", 'ð': "d", 'Ð': "D", 'þ': "th", 'Þ': "TH",
	'ı': "i", 'ħ': "h", 'Ħ': "H", 'ŋ': "n", 'Ŋ': "N", 'ĸ': "k", 'ſ': "s",
	'&': "+", '"': "'", '‘': "'", '’': "'", '‚': "'", '“': "'", '”': "'", '„': "'", '`': "'", '´': "'",
	'–': "-", '—': "-", '‐': "-", '‑': "-", '_': "-", '€': "EUR", '@': "(at)",
	'[': "(", ']': ")", '{': "(", '}': ")", '<': "(", '>': ")", ';': ",", '!': ".", '=': "-",
	'#': "", '*': "", '%': "", '$': "", '|': "/", '\\': "/", '~': "-", '^': "",
}

// inSEPA reports whether c is in the SEPA basic character set (the EPC's
// "Latin character set": a-z A-Z 0-9 / - ? : ( ) . , ' + and space).
func inSEPA(c rune) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	switch c {
	case '/', '-', '?', ':', '(', ')', '.', ',', '\'', '+', ' ':
		return true
	}
	return false
}

// Text is s in the SEPA basic character set, at most max characters:
// accented letters lose their accents (é -> e, Ä -> A), ligatures and
// letters without a decomposition are spelled out (ß -> ss, Ø -> O), a few
// signs become their nearest allowed one (& -> +), anything else (other
// scripts, controls, emoji) becomes a space; runs of spaces become one and
// the ends are trimmed. It never fails: a transfer is never dropped for a
// character. The result may be empty (see Name).
func Text(s string, max int) string {
	if plain(s) { // the common case: nothing to transliterate
		if len(s) > max {
			return strings.TrimRight(s[:max], " ")
		}
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := true // drop leading spaces
	for _, r := range norm.NFKD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue // the accent of the letter before
		}
		out := string(r)
		if !inSEPA(r) {
			if sp, ok := special[r]; ok {
				out = sp
			} else {
				out = " "
			}
		}
		for _, c := range out {
			if c == ' ' || unicode.IsSpace(c) {
				if space {
					continue
				}
				space = true
				c = ' '
			} else {
				space = false
			}
			b.WriteRune(c)
		}
	}
	out := strings.TrimRight(b.String(), " ")
	if len(out) > max { // ASCII only: bytes are characters
		out = strings.TrimRight(out[:max], " ")
	}
	return out
}

// plain reports whether s is already SEPA text: only characters of the
// set, no space at either end nor two in a row.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || !inSEPA(rune(c)) || c == ' ' && (i == 0 || i == len(s)-1 || s[i-1] == ' ') {
			return false
		}
	}
	return true
}

// Name is a party's name for the file: Text of at most MaxName
// characters, NotProvided when nothing is left of it.
func Name(s string) string {
	if n := Text(s, MaxName); n != "" {
		return n
	}
	return NotProvided
}

// EndToEndID is the EndToEndId of the transfer whose bankrail id is id: a
// uuid without its hyphens (32 characters; the 36 of a uuid exceed the 35
// of Max35Text). TransactionID turns it back.
func EndToEndID(id string) string { return strings.ReplaceAll(strings.ToLower(id), "-", "") }

// TransactionID is the bankrail id (a uuid) of an EndToEndId that
// EndToEndID wrote, and false for any other EndToEndId.
func TransactionID(e2e string) (string, bool) {
	e := strings.ToLower(strings.TrimSpace(e2e))
	if len(e) != 32 {
		return "", false
	}
	for _, c := range e {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", false
		}
	}
	return e[:8] + "-" + e[8:12] + "-" + e[12:16] + "-" + e[16:20] + "-" + e[20:], true
}
