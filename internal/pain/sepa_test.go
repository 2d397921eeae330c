package pain

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestText(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("ä", 80)
	tests := []struct {
		name, in string
		max      int
		want     string
	}{
		{"plain", "Max Mustermann", 70, "Max Mustermann"},
		{"accents", "Zoë Müller-Lüdenscheidt", 70, "Zoe Muller-Ludenscheidt"},
		{"sharp s and ligatures", "Straße Æbelø Œuvre", 70, "Strasse AEbelo OEuvre"},
		{"polish", "Łukasz Żółć", 70, "Lukasz Zolc"},
		{"ampersand and quotes", `Smith & "Sons"`, 70, "Smith + 'Sons'"},
		{"other scripts become spaces", "Иван 李 Ltd", 70, "Ltd"},
		{"emoji and controls", "Pay\tment 🎉 42\n", 70, "Pay ment 42"},
		{"allowed signs stay", "Inv/2026-11?:(a).b,c'd+e", 70, "Inv/2026-11?:(a).b,c'd+e"},
		{"cut at max", long, 70, strings.Repeat("a", 70)},
		{"cut then trimmed", "abc def", 4, "abc"},
		{"fullwidth", "ＡＢＣ１２", 70, "ABC12"},
		{"empty", "", 70, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Text(tc.in, tc.max); got != tc.want {
				t.Errorf("Text(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
			}
		})
	}
	if got := Name("李"); got != NotProvided {
		t.Errorf("Name of a name with no Latin letter = %q, want %s", got, NotProvided)
	}
}

// TestTextProperty: whatever the input, the result is in the SEPA set,
// within the limit, without leading, trailing or double spaces, and a
// fixed point; Name is never empty.
func TestTextProperty(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.String().Draw(t, "s")
		max := rapid.IntRange(1, 140).Draw(t, "max")
		got := Text(s, max)
		if len(got) > max {
			t.Fatalf("Text(%q, %d) = %q: %d characters", s, max, got, len(got))
		}
		for _, c := range got {
			if !inSEPA(c) {
				t.Fatalf("Text(%q) = %q holds %q", s, got, c)
			}
		}
		if strings.HasPrefix(got, " ") || strings.HasSuffix(got, " ") || strings.Contains(got, "  ") {
			t.Fatalf("Text(%q) = %q: stray spaces", s, got)
		}
		if again := Text(got, max); again != got {
			t.Fatalf("Text is not a fixed point: %q -> %q", got, again)
		}
		if n := Name(s); n == "" || len(n) > MaxName {
			t.Fatalf("Name(%q) = %q", s, n)
		}
	})
}

func TestEndToEndIDRoundTrip(t *testing.T) {
	t.Parallel()
	id := "0b0f3c7e-5c1a-4d2e-9f00-123456789abc"
	e := EndToEndID(id)
	if len(e) > MaxID {
		t.Fatalf("EndToEndID(%s) = %q: %d characters", id, e, len(e))
	}
	if back, ok := TransactionID(e); !ok || back != id {
		t.Fatalf("TransactionID(%q) = %q, %v; want %s", e, back, ok, id)
	}
	for _, bad := range []string{"", "NOTPROVIDED", strings.Repeat("g", 32), e + "0"} {
		if _, ok := TransactionID(bad); ok {
			t.Errorf("TransactionID(%q) took it", bad)
		}
	}
}
