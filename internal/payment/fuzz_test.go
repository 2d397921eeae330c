package payment

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/errs"
)

// FuzzValidate decodes arbitrary JSON into a create request and validates
// it on both channels: it must never panic, and must answer nil or a
// VALIDATION_FAILURE whose every entry has a type, a path and a message.
// A valid request must stay valid after validation normalised it.
func FuzzValidate(f *testing.F) {
	for _, r := range []CreateRequest{validEU(), validUK()} {
		b, _ := json.Marshal(r)
		f.Add(b)
	}
	for _, s := range []string{`{}`, `{"amount":-1}`, `{"paymentSystem":"OPEN_BANKING_UK","openBankingEU":{}}`,
		`{"beneficiary":{"accountIdentifiers":{"iban":"DE89 3704 0044 0532 0130 00","sortCode":"--"}}}`,
		`{"checkout":{"hosted":{"countries":{"available":["", "GB", "GB"]}}},"displayInfo":[{},{}]}`,
		`{"openBankingEU":{"institutionId":"BA4C0276-0000-4000-8000-000000000001","validityPeriod":9223372036854775807}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var r CreateRequest
		if json.Unmarshal(body, &r) != nil {
			return
		}
		for _, ch := range []Channel{ChannelHosted, ChannelAPI} {
			c := r
			err := Validate(&c, ch, testLimits, bank.Default())
			if err == nil {
				if again := Validate(&c, ch, testLimits, bank.Default()); again != nil {
					t.Fatalf("valid request became invalid after normalisation: %v", again)
				}
				continue
			}
			var e *errs.Error
			if !errors.As(err, &e) || e.Code != errs.ValidationFailure || len(e.Fields) == 0 {
				t.Fatalf("Validate returned %v, want a VALIDATION_FAILURE", err)
			}
			for _, fe := range e.Fields {
				if fe.Type == "" || fe.PropertyPath == "" || fe.Message == "" {
					t.Fatalf("incomplete field error %+v", fe)
				}
			}
		}
	})
}
