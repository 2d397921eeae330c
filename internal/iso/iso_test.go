package iso

import (
	"strings"
	"testing"
)

func TestCheckIBAN(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want IBANProblem
	}{
		{"valid GB", "GB82WEST12345698765432", IBANOK},
		{"valid DE", "DE89370400440532013000", IBANOK},
		{"valid FR", "FR1420041010050500013M02606", IBANOK},
		{"valid NL", "NL91ABNA0417164300", IBANOK},
		{"valid NO shortest", "NO9386011117947", IBANOK},
		{"valid grouped and lower case", NormalizeIBAN(" gb82 west 1234 5698 7654 32 "), IBANOK},
		{"checksum", "GB82WEST12345698765433", IBANBadChecksum},
		{"too long", "DE89" + strings.Repeat("1", 33), IBANTooLong},
		{"too short", "DE8937040044", IBANTooShort},
		{"digits first", "1289370400440532013000", IBANBadFormat},
		{"letters in check digits", "DEXX370400440532013000", IBANBadFormat},
		{"punctuation", "DE89-70400440532013000", IBANBadFormat},
		{"unknown country", "QQ89370400440532013000", IBANBadFormat},
		{"wrong length for country", "DE893704004405320130001", IBANBadLength},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CheckIBAN(tt.in); got != tt.want {
				t.Fatalf("CheckIBAN(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestMakeIBANIsValid(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ country, bban string }{
		{"GB", "WEST12345698765432"}, {"DE", "370400440532013000"}, {"FR", "20041010050500013M02606"},
	} {
		iban := MakeIBAN(c.country, c.bban)
		if CheckIBAN(iban) != IBANOK {
			t.Errorf("MakeIBAN(%s, %s) = %s is not valid", c.country, c.bban, iban)
		}
	}
	if got := MakeIBAN("GB", "WEST12345698765432"); got != "GB82WEST12345698765432" {
		t.Fatalf("MakeIBAN = %s", got)
	}
}

func TestIsBIC(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		"DEUTDEFF": true, "DEUTDEFF500": true, "NWBKGB2L": true, "deutdeff": false,
		"DEUTDE": false, "DEUTQQFF": false, "1EUTDEFF": false, "DEUTDEFF50": false,
	} {
		if got := IsBIC(in); got != want {
			t.Errorf("IsBIC(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestReferenceData(t *testing.T) {
	t.Parallel()
	if c, ok := CurrencyOf("EUR"); !ok || c.Decimals != 2 || c.Name != "Euro" {
		t.Fatalf("EUR = %+v %v", c, ok)
	}
	if c, ok := CurrencyOf("JPY"); !ok || c.Decimals != 0 {
		t.Fatalf("JPY = %+v", c)
	}
	if _, ok := CurrencyOf("XAU"); ok {
		t.Fatal("XAU has no minor units and is not a payment currency")
	}
	if _, ok := CurrencyOf("eur"); ok {
		t.Fatal("codes are upper case")
	}
	if n, ok := CountryName("DE"); !ok || n != "Germany" {
		t.Fatalf("DE = %q", n)
	}
	if IsCountry("UK") || IsCountry("EU") || !IsCountry("GB") {
		t.Fatal("UK and EU are not ISO 3166-1 codes; GB is")
	}
}

// TestMaxDecimals: MaxDecimals is the most decimals of any currency.
func TestMaxDecimals(t *testing.T) {
	t.Parallel()
	most := 0
	for _, c := range currencies {
		most = max(most, c.Decimals)
	}
	if most != MaxDecimals {
		t.Fatalf("the most decimals of a currency is %d, MaxDecimals %d", most, MaxDecimals)
	}
}
