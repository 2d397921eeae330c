package mandate

import (
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
)

var t0 = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// field is one expected field error: "TYPE path".
func fieldsOf(t *testing.T, err error) []string {
	t.Helper()
	e, ok := err.(*errs.Error)
	if !ok {
		t.Fatalf("error %v is not an *errs.Error", err)
	}
	var out []string
	for _, f := range e.Fields {
		out = append(out, f.Type+" "+f.PropertyPath)
	}
	return out
}

func activePayTo() Mandate {
	return Mandate{ID: "m", Type: PayTo, Status: Active, Currency: "AUD", PaymentLimit: 5000,
		Validity: Validity{From: t0, To: t0.AddDate(1, 0, 0)}}
}

func TestCheckAmendmentRules(t *testing.T) {
	t.Parallel()
	used := activePayTo()
	used.UsedAt = t0.Add(time.Hour)
	vrp := activePayTo()
	vrp.Type, vrp.PaymentLimit = VRP, 0
	suspended := activePayTo()
	suspended.Status = Suspended
	tests := []struct {
		name   string
		m      Mandate
		in     AmendInput
		code   errs.Code
		fields []string
	}{
		{"rule 1: requested", func() Mandate { m := activePayTo(); m.Status = Requested; return m }(), AmendInput{PayTo: &PayToInput{ptr(int64(10))}}, errs.NotModifiable, nil},
		{"rule 1: cancelled", func() Mandate { m := activePayTo(); m.Status = Cancelled; return m }(), AmendInput{}, errs.NotModifiable, nil},
		{"rule 1: expired before the body", func() Mandate { m := activePayTo(); m.Status = Expired; return m }(), AmendInput{}, errs.NotModifiable, nil},
		{"rule 2: nothing", activePayTo(), AmendInput{}, errs.ValidationFailure, []string{"MISSING_FIELD validity"}},
		{"rule 2: empty validity", activePayTo(), AmendInput{Validity: &ValidityInput{}}, errs.ValidationFailure, []string{"MISSING_FIELD validity"}},
		{"rule 3: payTo on VRP", vrp, AmendInput{PayTo: &PayToInput{ptr(int64(10))}}, errs.ValidationFailure, []string{"FIELD_NOT_ALLOWED payTo"}},
		{"rule 4: from on a used mandate", used, AmendInput{Validity: &ValidityInput{From: ptr("2026-07-01 00:00:00")}}, errs.ValidationFailure, []string{"FIELD_NOT_ALLOWED validity.from"}},
		{"rule 4: to on a used mandate is fine", used, AmendInput{Validity: &ValidityInput{To: ptr("2027-07-01 00:00:00")}}, "", nil},
		{"rules 3 and 4 together", func() Mandate { m := vrp; m.UsedAt = t0; return m }(),
			AmendInput{PayTo: &PayToInput{ptr(int64(1))}, Validity: &ValidityInput{From: ptr("2026-07-01 00:00:00")}},
			errs.ValidationFailure, []string{"FIELD_NOT_ALLOWED payTo", "FIELD_NOT_ALLOWED validity.from"}},
		{"suspended may be amended", suspended, AmendInput{PayTo: &PayToInput{ptr(int64(7000))}}, "", nil},
		{"ISO timestamp refused", activePayTo(), AmendInput{Validity: &ValidityInput{To: ptr("2027-07-01T00:00:00Z")}}, errs.ValidationFailure, []string{"INVALID_FORMAT validity.to"}},
		{"date only refused", activePayTo(), AmendInput{Validity: &ValidityInput{From: ptr("2026-07-01")}}, errs.ValidationFailure, []string{"INVALID_FORMAT validity.from"}},
		{"to before from", activePayTo(), AmendInput{Validity: &ValidityInput{From: ptr("2026-08-01 00:00:00"), To: ptr("2026-07-01 00:00:00")}}, errs.ValidationFailure, []string{"INVALID_DATE validity.to"}},
		{"to in the past", activePayTo(), AmendInput{Validity: &ValidityInput{From: ptr("2026-01-01 00:00:00"), To: ptr("2026-05-01 00:00:00")}}, errs.ValidationFailure, []string{"INVALID_DATE validity.to"}},
		{"to before the current from", func() Mandate { m := activePayTo(); m.Validity.From = t0.AddDate(0, 2, 0); return m }(),
			AmendInput{Validity: &ValidityInput{To: ptr("2026-07-01 00:00:00")}}, errs.ValidationFailure, []string{"INVALID_DATE validity.to"}},
		{"limit missing", activePayTo(), AmendInput{PayTo: &PayToInput{}}, errs.ValidationFailure, []string{"VALUE_REQUIRED payTo.limits.payment.amount"}},
		{"limit zero", activePayTo(), AmendInput{PayTo: &PayToInput{ptr(int64(0))}}, errs.ValidationFailure, []string{"TOO_LOW payTo.limits.payment.amount"}},
		{"limit too high", activePayTo(), AmendInput{PayTo: &PayToInput{ptr(int64(1_000_001))}}, errs.ValidationFailure, []string{"TOO_HIGH payTo.limits.payment.amount"}},
		{"both", activePayTo(), AmendInput{PayTo: &PayToInput{ptr(int64(9))}, Validity: &ValidityInput{From: ptr("2026-06-02 00:00:00"), To: ptr("2027-06-02 00:00:00")}}, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := CheckAmendment(tc.m, tc.in, 10_000, t0) // 1,000,000 minor units of AUD
			if tc.code == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				got := tc.m
				got = c.ApplyTo(got, t0)
				if tc.in.PayTo != nil && got.PaymentLimit != *tc.in.PayTo.PaymentAmount {
					t.Fatalf("limit %d not applied", got.PaymentLimit)
				}
				if tc.in.Validity != nil && tc.in.Validity.To != nil && FormatTimestamp(got.Validity.To) != *tc.in.Validity.To {
					t.Fatalf("validity.to %s not applied", got.Validity.To)
				}
				return
			}
			if errs.CodeOf(err) != tc.code {
				t.Fatalf("got %v, want %s", err, tc.code)
			}
			if tc.fields != nil && strings.Join(fieldsOf(t, err), ",") != strings.Join(tc.fields, ",") {
				t.Fatalf("fields %v, want %v", fieldsOf(t, err), tc.fields)
			}
		})
	}
}

func TestCheckCreate(t *testing.T) {
	t.Parallel()
	payTo := func() CreateInput {
		return CreateInput{Type: "PAYTO", Payer: PayerInput{Name: "Ann Payer", BSB: "062000", AccountNumber: "12345678"},
			PayTo: &PayToInput{ptr(int64(5000))}}
	}
	vrp := func() CreateInput {
		return CreateInput{Type: "VRP", Payer: PayerInput{Name: "Bo Payer", SortCode: "040004", AccountNumber: "12345678"}}
	}
	tests := []struct {
		name   string
		in     CreateInput
		fields []string
	}{
		{"payto", payTo(), nil},
		{"vrp", vrp(), nil},
		{"vrp iban", func() CreateInput {
			in := vrp()
			in.Payer.SortCode, in.Payer.AccountNumber, in.Payer.IBAN = "", "", "GB33 BUKB 2020 1555 5555 55"
			return in
		}(), nil},
		{"vrp bad iban", func() CreateInput {
			in := vrp()
			in.Payer.SortCode, in.Payer.AccountNumber, in.Payer.IBAN = "", "", "GB34BUKB20201555555555"
			return in
		}(), []string{"CHECKSUM_FAILED payer.accountIdentifiers.iban"}},
		{"no type", CreateInput{Payer: PayerInput{Name: "x"}}, []string{"VALUE_REQUIRED type"}},
		{"bad type", func() CreateInput { in := vrp(); in.Type = "SEPA"; return in }(), []string{"INVALID_VALUE type"}},
		{"wrong currency", func() CreateInput { in := payTo(); in.Currency = ptr("GBP"); return in }(), []string{"INVALID_VALUE currency"}},
		{"payto without limit", func() CreateInput { in := payTo(); in.PayTo = nil; return in }(), []string{"VALUE_REQUIRED payTo.limits.payment.amount"}},
		{"vrp with payTo", func() CreateInput { in := vrp(); in.PayTo = &PayToInput{ptr(int64(1))}; return in }(), []string{"FIELD_NOT_ALLOWED payTo"}},
		{"no payer", CreateInput{Type: "VRP"}, []string{"VALUE_REQUIRED payer.name", "VALUE_REQUIRED payer.accountIdentifiers"}},
		{"short sort code", func() CreateInput { in := vrp(); in.Payer.SortCode = "0400"; return in }(), []string{"TOO_SHORT payer.accountIdentifiers.sortCode"}},
		{"letters in bsb", func() CreateInput { in := payTo(); in.Payer.BSB = "06200A"; return in }(), []string{"INVALID_FORMAT payer.accountIdentifiers.bsb"}},
		{"validity", func() CreateInput {
			in := vrp()
			in.Validity = &ValidityInput{From: ptr("2026-06-01 00:00:00"), To: ptr("2026-05-01 00:00:00")}
			return in
		}(), []string{"INVALID_DATE validity.to"}},
		{"validity format", func() CreateInput { in := vrp(); in.Validity = &ValidityInput{To: ptr("tomorrow")}; return in }(), []string{"INVALID_FORMAT validity.to"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, err := CheckCreate(tc.in, 10_000, t0)
			if tc.fields == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if m.Status != Requested || m.Currency != m.Type.Currency() || !m.Validity.From.Equal(t0) {
					t.Fatalf("mandate %+v", m)
				}
				return
			}
			if got := fieldsOf(t, err); strings.Join(got, ",") != strings.Join(tc.fields, ",") {
				t.Fatalf("fields %v, want %v", got, tc.fields)
			}
		})
	}
}

func TestMoves(t *testing.T) {
	t.Parallel()
	all := []Status{Requested, Active, Suspended, Declined, Cancelled, Expired}
	moves := []Move{Authorise, Decline, Suspend, Resume, Cancel, Expire}
	allowed := map[string]Status{
		"authorise REQUESTED": Active, "decline REQUESTED": Declined, "suspend ACTIVE": Suspended,
		"resume SUSPENDED": Active, "cancel REQUESTED": Cancelled, "cancel ACTIVE": Cancelled, "cancel SUSPENDED": Cancelled,
		"expire REQUESTED": Expired, "expire ACTIVE": Expired, "expire SUSPENDED": Expired,
	}
	for _, mv := range moves {
		for _, st := range all {
			got, err := mv.Apply(Mandate{Status: st}, t0)
			want, ok := allowed[mv.Name+" "+string(st)]
			switch {
			case ok && (err != nil || got.Status != want || !got.UpdatedAt.Equal(t0)):
				t.Errorf("%s from %s: %v %v, want %s", mv.Name, st, got.Status, err, want)
			case !ok && !errs.Is(err, errs.NotModifiable):
				t.Errorf("%s from %s: %v, want RESOURCE_NOT_MODIFIABLE", mv.Name, st, err)
			}
		}
	}
}

func TestAnswersAndTimers(t *testing.T) {
	t.Parallel()
	a := Amendment{Status: AwaitingApproval, CreatedAt: t0}
	if a.AbandonDue(t0.Add(AbandonAfter-time.Microsecond)) || !a.AbandonDue(t0.Add(AbandonAfter)) {
		t.Fatal("abandonment is due exactly 5 days after creation")
	}
	for _, ans := range []Answer{Approve, Refuse, Abandon, Recall} {
		got, err := ans.Apply(a, t0)
		if err != nil || got.Status != ans.To || got.Details == nil || got.Details.Code == "" {
			t.Fatalf("%s: %+v %v", ans.To, got, err)
		}
		if _, err := Approve.Apply(got, t0); !errs.Is(err, errs.NotModifiable) {
			t.Fatalf("a second answer after %s: %v", ans.To, err)
		}
	}
	m := activePayTo()
	if m.ExpiryDue(m.Validity.To.Add(-time.Microsecond)) || !m.ExpiryDue(m.Validity.To) {
		t.Fatal("expiry is due at validity.to")
	}
	m.Status = Cancelled
	if m.ExpiryDue(m.Validity.To) {
		t.Fatal("an ended mandate does not expire")
	}
	m.Status, m.Validity.To = Active, time.Time{}
	if m.ExpiryDue(t0.AddDate(100, 0, 0)) {
		t.Fatal("a mandate without an end never expires")
	}
}
