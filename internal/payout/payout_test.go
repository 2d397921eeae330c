package payout

import (
	"errors"
	"testing"

	"github.com/bankrail/bankrail/internal/errs"
)

// Every field is checked at once, each with its precise error.
func TestInputValidation(t *testing.T) {
	t.Parallel()
	valid := func() Input {
		return Input{AccountID: "0190F2A4-7C1E-7D3A-9B52-3F1F2C9E8A10", Amount: 100, Currency: "EUR", PaymentReference: "Invoice 42",
			Beneficiary: Beneficiary{Name: "Jane Doe", IBAN: "de89 3704 0044 0532 0130 00"}}
	}
	long := string(make([]rune, 141))
	for _, c := range []struct {
		name   string
		change func(*Input)
		want   map[string]string // path -> type; nil: valid
	}{
		{"valid IBAN", func(*Input) {}, nil},
		{"valid UK", func(in *Input) {
			in.Beneficiary = Beneficiary{Name: "J", SortCode: "40-47-84", AccountNumber: "7087 2490"}
		}, nil},
		{"type PAYOUT", func(in *Input) { in.Type = TypePayout }, nil},
		{"everything wrong", func(in *Input) {
			*in = Input{AccountID: "x", Amount: -1, Currency: "EURO", PaymentReference: " ", InternalReference: long, Type: "GIFT",
				Beneficiary: Beneficiary{Name: "", IBAN: "DE89370400440532013001"}}
		}, map[string]string{"accountId": errs.InvalidFormat, "amount": errs.TooLow, "currency": errs.InvalidValue,
			"paymentReference": errs.ValueRequired, "internalReference": errs.TooLong, "type": errs.InvalidValue,
			"beneficiary.name": errs.ValueRequired, "beneficiary.accountIdentifiers.iban": errs.ChecksumFailed}},
		{"no account", func(in *Input) { in.AccountID, in.Beneficiary.IBAN = "", "" },
			map[string]string{"accountId": errs.ValueRequired, "beneficiary.accountIdentifiers.iban": errs.ValueRequired}},
		{"settlement", func(in *Input) { in.Type = TypeSettlement }, nil},
		{"both kinds", func(in *Input) { in.Beneficiary.SortCode = "404784" },
			map[string]string{"beneficiary.accountIdentifiers": errs.InvalidValue}},
		{"bad UK", func(in *Input) { in.Beneficiary = Beneficiary{Name: "J", SortCode: "4047", AccountNumber: "x"} },
			map[string]string{"beneficiary.accountIdentifiers.sortCode": errs.InvalidFormat,
				"beneficiary.accountIdentifiers.accountNumber": errs.InvalidFormat}},
		{"half UK", func(in *Input) { in.Beneficiary = Beneficiary{Name: "J", SortCode: "404784"} },
			map[string]string{"beneficiary.accountIdentifiers.accountNumber": errs.ValueRequired}},
		{"not an IBAN", func(in *Input) { in.Beneficiary.IBAN = "hello" },
			map[string]string{"beneficiary.accountIdentifiers.iban": errs.InvalidFormat}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			in := valid()
			c.change(&in)
			wantType := in.Type
			if wantType == "" {
				wantType = TypePayout // the default
			}
			err := in.validate()
			if c.want == nil {
				if err != nil {
					t.Fatalf("valid input refused: %v", err)
				}
				if in.Type != wantType || in.AccountID != "0190f2a4-7c1e-7d3a-9b52-3f1f2c9e8a10" {
					t.Fatalf("not normalised: %+v", in)
				}
				return
			}
			var e *errs.Error
			if !errors.As(err, &e) || e.Code != errs.ValidationFailure {
				t.Fatalf("error %v", err)
			}
			got := map[string]string{}
			for _, f := range e.Fields {
				got[f.PropertyPath] = f.Type
			}
			if len(got) != len(c.want) {
				t.Fatalf("errors %v, want %v", got, c.want)
			}
			for k, v := range c.want {
				if got[k] != v {
					t.Fatalf("errors %v, want %v", got, c.want)
				}
			}
		})
	}
}

// The mock bank's holder names aim at each result; NO_MATCH is the same
// stranger for the same account.
func TestMockHolderResults(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"Jane Doe", "Max Mustermann", "Acme", "Anna Maria Schmidt", "Li Wei"} {
		b := Beneficiary{Name: name, IBAN: "DE89370400440532013000"}
		for sc, want := range map[Scenario]Result{ScenarioNone: Match, ScenarioRejected: Match, ScenarioCloseMatch: CloseMatch,
			ScenarioNoMatch: NoMatch, ScenarioError: ErrorResult} {
			if got := Classify(name, MockHolder(b, sc)); got != want {
				t.Errorf("%q under %q: %s (holder %q), want %s", name, sc, got, MockHolder(b, sc), want)
			}
		}
		if first, again := MockHolder(b, ScenarioNoMatch), MockHolder(b, ScenarioNoMatch); first != again {
			t.Errorf("%q: NO_MATCH holder is not deterministic", name)
		}
	}
}

// The sandbox's outcomes: 1570 fails, 2570 and PAYOUT_REJECTED are rejected.
func TestOutcomes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		amount int64
		sc     Scenario
		want   Status
	}{{1000, ScenarioNone, Completed}, {FailingAmount, ScenarioNone, Failed}, {RejectedAmount, ScenarioNone, Rejected},
		{1000, ScenarioRejected, Rejected}, {1000, ScenarioCloseMatch, Completed}, {FailingAmount, ScenarioRejected, Failed}} {
		if got := outcomeOf(c.amount, c.sc); got != c.want {
			t.Errorf("%d %q: %s, want %s", c.amount, c.sc, got, c.want)
		}
	}
}
