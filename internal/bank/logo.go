package bank

import (
	"fmt"
	"hash/fnv"
	"strings"
	"unicode"
)

// logo draws a bank's logo as SVG: its initials on a colour derived from
// its name. No image is fetched from anywhere.
func logo(name string, width, height int) []byte {
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	hue := h.Sum32() % 360
	svg := fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`+
		`<rect width="%d" height="%d" rx="8" fill="hsl(%d,55%%,38%%)"/>`+
		`<text x="50%%" y="54%%" dominant-baseline="middle" text-anchor="middle" font-family="sans-serif" font-size="20" font-weight="bold" fill="#fff">%s</text></svg>`,
		width, height, width, height, width, height, hue, initials(name))
	return []byte(svg)
}

// initials are the first letters of up to three words, upper case.
func initials(name string) string {
	var b strings.Builder
	for _, w := range strings.Fields(name) {
		r := []rune(w)[0]
		if unicode.IsLetter(r) && b.Len() < 3 {
			b.WriteRune(unicode.ToUpper(r))
		}
	}
	return b.String()
}

// shortBranch abbreviates a branch name to at most 12 characters.
func shortBranch(branch string) string {
	r := []rune(branch)
	if len(r) <= 12 {
		return branch
	}
	return strings.TrimSpace(string(r[:12]))
}
