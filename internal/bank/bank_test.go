package bank

import (
	"bytes"
	"testing"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/iso"
)

func TestRegistryData(t *testing.T) {
	t.Parallel()
	r := Default()
	perCountry := map[string]int{}
	for _, b := range r.List(Filter{}) {
		perCountry[b.Country]++
		if _, err := uuid.Parse(b.ID); err != nil {
			t.Errorf("%s: id %q is not a uuid", b.Name, b.ID)
		}
		if !iso.IsBIC(b.BIC) || b.BIC[4:6] != b.Country {
			t.Errorf("%s: BIC %q is not a BIC of %s", b.Name, b.BIC, b.Country)
		}
		if !bytes.HasPrefix(b.Logo, []byte("<svg ")) || !bytes.HasPrefix(b.Icon, []byte("<svg ")) || bytes.Contains(b.Logo, []byte("href")) {
			t.Errorf("%s: logo and icon must be self-contained SVG", b.Name)
		}
		want := OpenBankingEU
		if b.Country == "GB" {
			want = OpenBankingUK
		}
		if len(b.Systems) != 1 || b.Systems[0] != want {
			t.Errorf("%s: systems %v, want [%s]", b.Name, b.Systems, want)
		}
		if got, ok := r.Get(b.ID); !ok || got.Name != b.Name {
			t.Errorf("Get(%s) = %v %v", b.ID, got.Name, ok)
		}
		if got, ok := r.ByBIC(b.BIC + "XXX"); !ok || got.ID != b.ID {
			t.Errorf("ByBIC(%sXXX) = %v %v", b.BIC, got.ID, ok)
		}
	}
	for _, c := range []string{"GB", "DE", "FR", "ES", "IT", "NL", "IE", "BE", "AT", "PT", "FI"} {
		if perCountry[c] < 3 {
			t.Errorf("%s has %d banks, want at least 3", c, perCountry[c])
		}
	}
}

func TestStableIDs(t *testing.T) {
	t.Parallel()
	// Merchants hard-code these; they must never change.
	b, ok := Default().Get("ba4c0826-0000-4000-8000-000000000001")
	if !ok || b.Name != "Thames Mutual Bank" || b.Country != "GB" {
		t.Fatalf("GB bank 1 = %+v %v", b, ok)
	}
	b, ok = Default().Get("ba4c0276-0000-4000-8000-000000000001")
	if !ok || b.Name != "Rheinische Volksbank" || !b.Supports(OpenBankingEU) || b.Supports(OpenBankingUK) {
		t.Fatalf("DE bank 1 = %+v %v", b, ok)
	}
}

func TestFilter(t *testing.T) {
	t.Parallel()
	r := Default()
	de := r.List(Filter{Country: "DE"})
	if len(de) != 3 {
		t.Fatalf("DE: %d banks", len(de))
	}
	if got := r.List(Filter{Country: "DE", System: OpenBankingUK}); len(got) != 0 {
		t.Fatalf("DE + UK: %d banks, want 0", len(got))
	}
	uk := r.List(Filter{System: OpenBankingUK})
	for _, b := range uk {
		if b.Country != "GB" {
			t.Fatalf("UK system lists %s of %s", b.Name, b.Country)
		}
	}
	if len(uk) != 5 {
		t.Fatalf("UK: %d banks", len(uk))
	}
	if got := r.List(Filter{Country: "US"}); got == nil || len(got) != 0 {
		t.Fatalf("US: %v, want an empty, non-nil list", got)
	}
}
