package namematch

// JaroWinkler is the Jaro similarity of a and b raised for a common prefix
// of up to four characters (scale 0.1), applied when the Jaro similarity is
// above 0.7 as Winkler proposed. It compares runes, returns 1 for equal
// strings and 0 when either is empty.
func JaroWinkler(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	j := jaro(ra, rb)
	if j <= 0.7 {
		return j
	}
	prefix := 0
	for prefix < len(ra) && prefix < len(rb) && prefix < 4 && ra[prefix] == rb[prefix] {
		prefix++
	}
	return j + float64(prefix)*0.1*(1-j)
}

// jaro is the Jaro similarity: matches within a window of half the longer
// length, less half the transpositions.
func jaro(a, b []rune) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	if string(a) == string(b) {
		return 1
	}
	window := max(len(a), len(b))/2 - 1
	window = max(window, 0)
	matchedA, matchedB := make([]bool, len(a)), make([]bool, len(b))
	matches := 0
	for i := range a {
		lo, hi := max(0, i-window), min(len(b), i+window+1)
		for k := lo; k < hi; k++ {
			if !matchedB[k] && a[i] == b[k] {
				matchedA[i], matchedB[k] = true, true
				matches++
				break
			}
		}
	}
	if matches == 0 {
		return 0
	}
	transpositions, k := 0, 0
	for i := range a {
		if !matchedA[i] {
			continue
		}
		for !matchedB[k] {
			k++
		}
		if a[i] != b[k] {
			transpositions++
		}
		k++
	}
	m := float64(matches)
	return (m/float64(len(a)) + m/float64(len(b)) + (m-float64(transpositions)/2)/m) / 3
}
