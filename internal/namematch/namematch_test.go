package namematch

import (
	"math"
	"slices"
	"testing"
)

func TestJaroWinklerKnownValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want float64
	}{
		{"martha", "marhta", 0.9611},
		{"dwayne", "duane", 0.84},
		{"dixon", "dicksonx", 0.8133},
		{"same", "same", 1},
		{"", "abc", 0},
		{"abc", "xyz", 0},
	}
	for _, tt := range tests {
		if got := JaroWinkler(tt.a, tt.b); math.Abs(got-tt.want) > 0.0001 {
			t.Errorf("JaroWinkler(%q, %q) = %.4f, want %.4f", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		org  bool
		want []string
	}{
		{"José Ñúñez-García", false, []string{"jose", "nunez", "garcia"}},
		{"MR. JOHN O'BRIEN", false, []string{"john", "obrien"}},
		{"Straße Ølstad Łukasz", false, []string{"strasse", "olstad", "lukasz"}},
		{"Acme Widgets Ltd.", true, []string{"acme", "widgets"}},
		{"Müller & Söhne GmbH & Co. KG", true, []string{"muller", "sohne"}},
		{"Banco del Tajo, S.A.", true, []string{"banco", "del", "tajo"}},
		{"Polderbank B.V.", true, []string{"polderbank"}},
		{"The Ltd", true, []string{"ltd"}},
		{"Mr", false, []string{"mr"}},
		{"  ...  ", false, nil},
	}
	for _, tt := range tests {
		if got := Tokens(tt.in, tt.org); !slices.Equal(got, tt.want) {
			t.Errorf("Tokens(%q, %v) = %q, want %q", tt.in, tt.org, got, tt.want)
		}
	}
}

func TestScore(t *testing.T) {
	t.Parallel()
	person, initials := Options{}, Options{AllowInitials: true}
	org := Options{Organisation: true}
	tests := []struct {
		name     string
		a, b     string
		opts     Options
		min, max float64
	}{
		{"identical", "John Smith", "John Smith", person, 1, 1},
		{"case and punctuation", "john smith", "SMITH, JOHN.", person, 1, 1},
		{"accents", "Zoë Bérénice Lefèvre", "Zoe Berenice Lefevre", person, 1, 1},
		{"order", "García Lorca Federico", "Federico García Lorca", person, 1, 1},
		{"title from the bank", "Jane Doe", "MRS JANE DOE", person, 1, 1},
		{"initial allowed", "J. Smith", "John Smith", initials, 1, 1},
		{"initials both ways", "John Ronald Tolkien", "J R Tolkien", initials, 1, 1},
		{"initial not allowed", "J. Smith", "John Smith", person, 0.85, 0.95},
		{"wrong initial", "K. Smith", "John Smith", initials, 0.4, 0.6},
		{"typo", "Jon Smyth", "John Smith", person, 0.85, 0.99},
		{"middle name missing", "John Smith", "John Michael Smith", person, 0.79, 0.81},
		{"different person", "John Smith", "Maria Garcia", person, 0, 0.55},
		{"organisation suffixes", "Acme Widgets Ltd", "ACME WIDGETS LIMITED", org, 1, 1},
		{"organisation dotted suffix", "Banco del Tajo S.A.", "Banco del Tajo, SA", org, 1, 1},
		{"organisation BV", "Polderbank BV", "Polderbank B.V.", org, 1, 1},
		{"suffix counts for persons", "Acme Ltd", "Acme", person, 0.6, 0.7},
		{"empty", "", "John Smith", person, 0, 0},
		{"only punctuation", "--", "John", person, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Score(tt.a, tt.b, tt.opts)
			if got < tt.min || got > tt.max {
				t.Fatalf("Score(%q, %q, %+v) = %.4f, want in [%.2f, %.2f]", tt.a, tt.b, tt.opts, got, tt.min, tt.max)
			}
			if back := Score(tt.b, tt.a, tt.opts); back != got {
				t.Fatalf("not symmetric: %.4f one way, %.4f the other", got, back)
			}
		})
	}
}

func FuzzScore(f *testing.F) {
	for _, s := range [][2]string{{"John Smith", "J. Smith"}, {"Müller GmbH", "MUELLER"}, {"", "ß"}, {"\xff\xfe", "a\u0301"}} {
		f.Add(s[0], s[1], true, false)
	}
	f.Fuzz(func(t *testing.T, a, b string, initials, org bool) {
		s := Score(a, b, Options{AllowInitials: initials, Organisation: org})
		if s < 0 || s > 1 || math.IsNaN(s) {
			t.Fatalf("Score(%q, %q) = %v, outside [0, 1]", a, b, s)
		}
		if a == b && len(Tokens(a, org)) > 0 && s != 1 {
			t.Fatalf("Score(%q, %q) = %v, want 1 for equal names", a, b, s)
		}
	})
}
