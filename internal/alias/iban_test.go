package alias

import (
	"errors"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/iso"
)

// An alias IBAN has valid check digits, the account's country, length,
// bank code and letters; the same arguments give the same IBAN and other
// places or salts other IBANs.
func TestNewIBAN(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		account string
		keep    int // BBAN characters kept
	}{
		{"DE89370400440532013000", 8},
		{"GB82WEST12345698765432", 10},
		{"NL91ABNA0417164300", 4},
		{"FR1420041010050500013M02606", 10},
		{"NO9386011117947", 4},
		{"IT60X0542811101000000123456", 11},
	} {
		seen := map[string]bool{c.account: true}
		for seq := range 500 {
			iban, err := NewIBAN(c.account, "order-1", seq, 0)
			if err != nil {
				t.Fatal(err)
			}
			if iso.CheckIBAN(iban) != iso.IBANOK || len(iban) != len(c.account) || iban[:2] != c.account[:2] ||
				iban[4:4+c.keep] != c.account[4:4+c.keep] {
				t.Fatalf("alias %s of %s", iban, c.account)
			}
			if !CouldBeAliasOf(iban, c.account) {
				t.Fatalf("alias %s of %s: CouldBeAliasOf says it cannot be one", iban, c.account)
			}
			for i := 4; i < len(iban); i++ {
				if isLetter(iban[i]) != isLetter(c.account[i]) {
					t.Fatalf("alias %s of %s: letter at %d differs", iban, c.account, i)
				}
			}
			if seen[iban] {
				t.Fatalf("%s: %s twice in 500", c.account, iban)
			}
			seen[iban] = true
		}
		a, _ := NewIBAN(c.account, "order-1", 7, 0)
		b, _ := NewIBAN(c.account, "order-1", 7, 0)
		salted, _ := NewIBAN(c.account, "order-1", 7, 1)
		otherOrder, _ := NewIBAN(c.account, "order-2", 7, 0)
		if a != b || a == salted || a == otherOrder {
			t.Fatalf("%s: %s %s %s %s", c.account, a, b, salted, otherOrder)
		}
	}
	if _, err := NewIBAN("DE89370400440532013001", "o", 0, 0); err == nil {
		t.Fatal("an invalid account IBAN was taken")
	}
}

func isLetter(c byte) bool { return c >= 'A' && c <= 'Z' }

// Every field of an order is checked at once.
func TestInputValidation(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   Input
		want map[string]string
	}{
		{Input{AccountID: " 0190F2A4-7C1E-7D3A-9B52-3F1F2C9E8A10 ", Count: 1}, nil},
		{Input{AccountID: "0190f2a4-7c1e-7d3a-9b52-3f1f2c9e8a10", Count: MaxCount}, nil},
		{Input{Count: 0}, map[string]string{"accountId": errs.ValueRequired, "count": errs.TooLow}},
		{Input{AccountID: "x", Count: MaxCount + 1}, map[string]string{"accountId": errs.InvalidFormat, "count": errs.TooHigh}},
	} {
		err := c.in.validate()
		if c.want == nil {
			if err != nil || c.in.AccountID != strings.ToLower(strings.TrimSpace(c.in.AccountID)) || strings.ContainsAny(c.in.AccountID, " ABCDEF") {
				t.Fatalf("%+v: %v", c.in, err)
			}
			continue
		}
		var e *errs.Error
		if !errorsAs(err, &e) || len(e.Fields) != len(c.want) {
			t.Fatalf("%+v: %v", c.in, err)
		}
		for _, f := range e.Fields {
			if c.want[f.PropertyPath] != f.Type {
				t.Fatalf("%+v: %s %s", c.in, f.PropertyPath, f.Type)
			}
		}
	}
}

func errorsAs(err error, target **errs.Error) bool { return errors.As(err, target) }

// An IBAN of another country, length or bank, or with a letter where an
// alias has a digit, cannot be an alias of the account: no look-up needed.
func TestCouldBeAliasOf(t *testing.T) {
	t.Parallel()
	const de = "DE89370400440532013000"
	alias, err := NewIBAN(de, "order-1", 7, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, iban, account string
		want                bool
	}{
		{"an alias of the account", alias, de, true},
		{"the account's own IBAN (shape only)", de, de, true},
		{"another bank in the country", "DE02120300000000202051", de, false},
		{"another country", "AT611904300234573201", de, false},
		{"another length", "DE8937040044053201300", de, false},
		{"a letter where an alias has a digit", alias[:len(alias)-1] + "X", de, false},
		{"another bank, short BBAN", "NO9386011117947", "NO1234567890123", false},
		{"a short BBAN of another country", "DK5000400440116243", "NO1234567890123", false},
		{"nothing", "", de, false},
	} {
		if got := CouldBeAliasOf(c.iban, c.account); got != c.want {
			t.Errorf("%s: CouldBeAliasOf(%s, %s) = %v, want %v", c.name, c.iban, c.account, got, c.want)
		}
	}
}
