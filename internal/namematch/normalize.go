package namematch

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// folds are letters that Unicode decomposition leaves whole.
var folds = map[rune]string{
	'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'ł': "l", 'đ': "d", 'ð': "d", 'þ': "th", 'ı': "i", 'ħ': "h",
}

// titles are honorifics banks put before a person's name.
var titles = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "miss": true, "mx": true, "dr": true, "prof": true, "sir": true,
	"herr": true, "frau": true, "mme": true, "mlle": true, "sr": true, "sra": true, "sig": true, "dott": true,
}

// suffixes are legal forms of organisations, written without punctuation
// or spaces ("S.A." is "sa", "Sp. z o.o." is "spzoo").
var suffixes = map[string]bool{
	"ltd": true, "limited": true, "plc": true, "llp": true, "llc": true, "inc": true, "incorporated": true,
	"corp": true, "corporation": true, "co": true, "company": true, "gmbh": true, "ag": true, "kg": true,
	"ug": true, "ek": true, "eg": true, "gbr": true, "ohg": true, "se": true, "sa": true, "sas": true, "sarl": true,
	"sl": true, "slu": true, "srl": true, "spa": true, "snc": true, "bv": true, "nv": true, "vof": true,
	"oy": true, "oyj": true, "ab": true, "as": true, "asa": true, "aps": true, "lda": true, "dac": true,
	"spzoo": true, "sro": true, "kft": true, "eirl": true, "cv": true, "pty": true, "gmbhcokg": true,
}

// Tokens normalises a name into comparable words: accents removed, lower
// case, split at anything that is not a letter or digit (apostrophes join:
// O'Brien is obrien), leading titles dropped and, for organisations,
// trailing legal forms and a leading "the" dropped. A name made only of
// titles or suffixes keeps them rather than vanishing.
func Tokens(name string, organisation bool) []string {
	var b strings.Builder
	for _, r := range norm.NFD.String(name) {
		switch {
		case unicode.Is(unicode.Mn, r):
			// a combining accent: dropped
		case r == '\'' || r == '’' || r == '`':
			// apostrophes join the parts of a name
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			r = unicode.ToLower(r)
			if f, ok := folds[r]; ok {
				b.WriteString(f)
			} else {
				b.WriteRune(r)
			}
		default:
			b.WriteByte(' ')
		}
	}
	tokens := strings.Fields(b.String())
	if organisation {
		return stripOrganisation(tokens)
	}
	for len(tokens) > 1 && titles[tokens[0]] {
		tokens = tokens[1:]
	}
	return tokens
}

// stripOrganisation drops trailing legal forms, also when written with dots
// between letters ("s a", "b v"), and "the" and "&"-style joiners before
// them.
func stripOrganisation(tokens []string) []string {
	if len(tokens) > 1 && tokens[0] == "the" {
		tokens = tokens[1:]
	}
	for {
		cut := 0
		for k := min(4, len(tokens)-1); k >= 1; k-- {
			if suffixes[strings.Join(tokens[len(tokens)-k:], "")] {
				cut = k
				break
			}
		}
		if cut == 0 {
			break
		}
		tokens = tokens[:len(tokens)-cut]
		for len(tokens) > 1 && (tokens[len(tokens)-1] == "and" || tokens[len(tokens)-1] == "und" || tokens[len(tokens)-1] == "et") {
			tokens = tokens[:len(tokens)-1]
		}
	}
	return tokens
}
