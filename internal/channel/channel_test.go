package channel

import (
	"errors"
	"testing"
)

func TestChecksumEVMMatchesEIP55Vectors(t *testing.T) {
	t.Parallel()
	for _, want := range []string{ // from EIP-55
		"0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
		"0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
		"0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
		"0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
	} {
		if got := ChecksumEVM(want); got != want {
			t.Errorf("ChecksumEVM(%s) = %s", want, got)
		}
		if !ValidEVM(want) {
			t.Errorf("ValidEVM(%s) = false", want)
		}
	}
	if ValidEVM("0x5aaeb6053F3E94C9b9A09f33669435E7Ef1BeAed") {
		t.Error("a wrong checksum is valid")
	}
}

func TestBase58Vectors(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "", "\x00\x00\x01": "112", "hello world": "StV1DL6CwTryKyV"} {
		if got := Base58([]byte(in)); got != want {
			t.Errorf("Base58(%q) = %q, want %q", in, got, want)
		}
		if b, ok := DecodeBase58(want); !ok || string(b) != in {
			t.Errorf("DecodeBase58(%q) = %q, %v", want, b, ok)
		}
	}
}

func TestAddressIsDeterministicAndInTheNetworksFormat(t *testing.T) {
	t.Parallel()
	const id, other = "0190f0a8-0000-7000-8000-000000000001", "0190f0a8-0000-7000-8000-000000000002"
	for _, n := range Networks {
		a := Address(n, id)
		if a != Address(n, id) || a == Address(n, other) {
			t.Errorf("%s: address %s not deterministic per channel", n, a)
		}
		valid := ValidEVM(a)
		if n == SOL {
			valid = ValidSOL(a)
		}
		if !valid {
			t.Errorf("%s: %s is not a valid address", n, a)
		}
	}
}

func TestParseAmount(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want Amount
		err  error
	}{
		{"0.000001", 1, nil}, {"99999999.999999", MaxAmount, nil}, {"12", 12_000_000, nil}, {"12.5", 12_500_000, nil},
		{"0", 0, ErrAmountRange}, {"0.0000001", 0, ErrAmountFormat}, {"100000000", 0, ErrAmountRange},
		{"1e3", 0, ErrAmountFormat}, {"-1", 0, ErrAmountFormat}, {".5", 0, ErrAmountFormat}, {"5.", 0, ErrAmountFormat},
		{"", 0, ErrAmountFormat}, {" 1", 0, ErrAmountFormat}, {"99999999999999999999999", 0, ErrAmountRange},
	} {
		got, err := ParseAmount(tc.in)
		if got != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("ParseAmount(%q) = %d, %v; want %d, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
	if s := Amount(1).String(); s != "0.000001" {
		t.Errorf("String = %s", s)
	}
	if s := MaxAmount.String(); s != "99999999.999999" {
		t.Errorf("String = %s", s)
	}
}

func TestConvertIsExactAndRoundsHalfEven(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		amount string
		rate   string
		exp    int
		want   int64
	}{
		{"0.000001", "1", 2, 0},
		{"99999999.999999", "1", 2, 10_000_000_000},                                       // 9999999999.9999 cents
		{"99999999.999999", "0.921834", 2, 9_218_340_000},                                 // 9218339999.9999078166 cents
		{"99999999.999999", "1.084792", 2, 10_847_920_000},                                // 10847919999.9998915208 cents
		{"99999999.995", "1", 2, 10_000_000_000}, {"99999999.985", "1", 2, 9_999_999_998}, // exact halves at the top
		{"0.005", "1", 2, 0}, {"0.015", "1", 2, 2}, {"0.025", "1", 2, 2}, {"0.035", "1", 2, 4}, // half-even
		{"0.000001", "1.084792", 2, 0},
		{"10", "0.921834", 2, 922},     // 921.834 cents
		{"0.1", "0.3", 2, 3},           // 0.03 exactly: no binary floating point drift
		{"1.000001", "0.787412", 0, 1}, // exponent 0
	} {
		a, err := ParseAmount(tc.amount)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Convert(a, tc.rate, tc.exp)
		if err != nil || got != tc.want {
			t.Errorf("Convert(%s, %s, %d) = %d, %v; want %d", tc.amount, tc.rate, tc.exp, got, err, tc.want)
		}
	}
	if _, err := Convert(1, "abc", 2); err == nil {
		t.Error("a bad rate converts")
	}
}

func TestCheckCreate(t *testing.T) {
	t.Parallel()
	ok := CreateInput{Token: "USDC", Network: "SOL", Currency: "EUR", EndUserReference: "user-1"}
	if err := CheckCreate(ok); err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]CreateInput{
		"token":    {Token: "USDT", Network: "SOL", Currency: "EUR", EndUserReference: "u"},
		"network":  {Token: "USDC", Network: "BTC", Currency: "EUR", EndUserReference: "u"},
		"currency": {Token: "USDC", Network: "SOL", Currency: "JPY", EndUserReference: "u"},
		"missing":  {Token: "USDC", Network: "SOL", Currency: "EUR"},
	} {
		if err := CheckCreate(in); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
