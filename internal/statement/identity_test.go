package statement

import (
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/camt"
)

// TestIdentity: AcctSvcrRef, else NtryRef, else a digest numbered by its
// occurrences in the file; always with the account.
func TestIdentity(t *testing.T) {
	t.Parallel()
	plain := camt.Entry{Amount: 500, Currency: "EUR", Credit: true, BookingDate: "2026-11-26",
		Transactions: []camt.Transaction{{Amount: 500, Currency: "EUR", Credit: true, References: []string{"fee"}}}}
	withRef := plain
	withRef.Ref = "N1"
	withBoth := withRef
	withBoth.AcctSvcrRef = "A1"
	seen := map[string]int{}
	if got := Identity("DE1", withBoth, seen); got != "DE1|AcctSvcrRef|A1" {
		t.Errorf("AcctSvcrRef first: %s", got)
	}
	if got := Identity("DE1", withRef, seen); got != "DE1|NtryRef|N1" {
		t.Errorf("then NtryRef: %s", got)
	}
	first, second := Identity("DE1", plain, seen), Identity("DE1", plain, seen)
	if !strings.HasPrefix(first, "DE1|digest|") || !strings.HasSuffix(first, "#1") || !strings.HasSuffix(second, "#2") ||
		strings.TrimSuffix(first, "#1") != strings.TrimSuffix(second, "#2") {
		t.Errorf("two identical entries of one file: %s, %s", first, second)
	}
	if again := Identity("DE1", plain, map[string]int{}); again != first {
		t.Errorf("the same entry in another file: %s, want %s", again, first)
	}
	other := plain
	other.Amount, other.Transactions = 501, []camt.Transaction{{Amount: 501, Currency: "EUR", Credit: true}}
	if Identity("DE1", other, map[string]int{}) == first || Identity("DE2", plain, map[string]int{}) == first {
		t.Error("another amount or another account makes the same identity")
	}
	if len(key(first)) != 64 {
		t.Errorf("key %q", key(first))
	}
}

// TestExternalIDAndDashes: the ledger's external id of each transaction of
// an entry, and an EndToEndId read as a UUID.
func TestExternalIDAndDashes(t *testing.T) {
	t.Parallel()
	batch := camt.Entry{AcctSvcrRef: "A1", Transactions: []camt.Transaction{{}, {AcctSvcrRef: "T2"}}}
	if got := externalID("x", batch, 0) + " " + externalID("x", batch, 1); got != "A1/1 T2" {
		t.Errorf("batch: %s", got)
	}
	single := camt.Entry{Transactions: []camt.Transaction{{}}}
	if got := externalID("DE1|digest|abc#1", single, 0); !strings.HasPrefix(got, "camt-") || len(got) != 29 {
		t.Errorf("digest: %s", got)
	}
	long := camt.Entry{AcctSvcrRef: strings.Repeat("r", 80), Transactions: []camt.Transaction{{}}}
	if got := externalID("x", long, 0); len(got) > 64 {
		t.Errorf("long: %s", got)
	}
	for in, want := range map[string]string{
		"01A21D2CF807753BBFEDC76B86FB0FAB":     "01a21d2c-f807-753b-bfed-c76b86fb0fab",
		"01a21d2c-f807-753b-bfed-c76b86fb0fab": "01a21d2c-f807-753b-bfed-c76b86fb0fab",
		"payout-1":                             "payout-1",
		"0123456789abcdef0123456789abcdeg":     "0123456789abcdef0123456789abcdeg",
	} {
		if got := dashed(in); got != want {
			t.Errorf("dashed(%q) = %q, want %q", in, got, want)
		}
	}
}
