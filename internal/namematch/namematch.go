// Package namematch scores how well two names of one party agree, such as
// the payer's name a merchant gave and the account holder name a bank
// reports: a token-wise Jaro-Winkler similarity from 0 (nothing alike) to 1
// (the same name). Accents, case, punctuation, word order, titles and
// (for organisations) legal-form suffixes do not count; with AllowInitials an
// initial matches any name that starts with it. Pure functions, no I/O.
package namematch

import (
	"math"
	"sort"
)

// Options tune a comparison.
type Options struct {
	// AllowInitials lets a one-letter token ("J" or "J.") match a whole name
	// that starts with that letter ("John") fully.
	AllowInitials bool
	// Organisation drops legal-form suffixes (Ltd, GmbH, S.A., BV, ...)
	// before comparing.
	Organisation bool
}

// Score compares two names and returns a similarity in [0, 1], rounded to
// four decimals. Each token of one name is paired with at most one token of
// the other, best pairs first; the score is the Dice-style average
// 2·Σsim / (|a| + |b|), so a missing or extra word lowers it.
func Score(a, b string, opts Options) float64 {
	ta, tb := Tokens(a, opts.Organisation), Tokens(b, opts.Organisation)
	if len(ta) == 0 || len(tb) == 0 {
		return 0
	}
	type pair struct {
		i, j int
		sim  float64
	}
	pairs := make([]pair, 0, len(ta)*len(tb))
	for i, x := range ta {
		for j, y := range tb {
			pairs = append(pairs, pair{i, j, tokenSimilarity(x, y, opts.AllowInitials)})
		}
	}
	sort.SliceStable(pairs, func(p, q int) bool { return pairs[p].sim > pairs[q].sim })
	usedA, usedB := make([]bool, len(ta)), make([]bool, len(tb))
	var sum float64
	for _, p := range pairs {
		if usedA[p.i] || usedB[p.j] {
			continue
		}
		usedA[p.i], usedB[p.j] = true, true
		sum += p.sim
	}
	score := 2 * sum / float64(len(ta)+len(tb))
	return math.Round(math.Min(1, score)*10000) / 10000
}

// tokenSimilarity is Jaro-Winkler, except that with allowInitials an initial
// and a name starting with it match fully.
func tokenSimilarity(x, y string, allowInitials bool) float64 {
	if allowInitials {
		rx, ry := []rune(x), []rune(y)
		if (len(rx) == 1 || len(ry) == 1) && rx[0] == ry[0] {
			return 1
		}
	}
	return JaroWinkler(x, y)
}
