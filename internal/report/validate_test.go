package report

import (
	"slices"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	s := func(v string) *string { return &v }
	start := "2026-01-01T00:00:00Z"
	for _, tt := range []struct {
		name string
		in   Input
		want []string
	}{
		{"minimal", Input{StartDate: s(start), EndDate: s("2026-01-02T00:00:00Z")}, nil},
		{"92 days exactly", Input{StartDate: s(start), EndDate: s("2026-04-03T00:00:00Z")}, nil},
		{"92 days and a microsecond", Input{StartDate: s(start), EndDate: s("2026-04-03T00:00:00.000001Z")}, []string{"OUT_OF_RANGE endDate"}},
		{"offsets", Input{StartDate: s("2026-01-01T02:00:00+02:00"), EndDate: s("2026-01-01T00:00:00Z")}, nil},
		{"reversed", Input{StartDate: s(start), EndDate: s("2025-12-31T23:59:59Z")}, []string{"INVALID_DATE endDate"}},
		{"the zero time is a date", Input{StartDate: s("0001-01-01T00:00:00Z"), EndDate: s("9999-12-31T23:59:59Z")}, []string{"OUT_OF_RANGE endDate"}},
		{"an end at the zero time", Input{StartDate: s(start), EndDate: s("0001-01-01T00:00:00Z")}, []string{"INVALID_DATE endDate"}},
		{"missing", Input{}, []string{"VALUE_REQUIRED startDate", "VALUE_REQUIRED endDate"}},
		{"formats", Input{StartDate: s("2026-01-01"), EndDate: s(start), CustomerID: s("x"), AccountID: s("")},
			[]string{"INVALID_FORMAT startDate", "INVALID_FORMAT customerId", "INVALID_FORMAT accountId"}},
		{"connect fields", Input{StartDate: s(start), EndDate: s(start), TransactionTypes: &[]string{"REFUND", "payment"},
			DateFilterType: s("updatedat")}, []string{"INVALID_VALUE transactionTypes[1]", "INVALID_VALUE dateFilterType"}},
		{"no transaction types", Input{StartDate: s(start), EndDate: s(start), TransactionTypes: &[]string{}}, []string{"TOO_FEW transactionTypes"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var v errs.Validation
			p := validate(tt.in, &v)
			var got []string
			if err, ok := v.Err().(*errs.Error); ok {
				for _, f := range err.Fields {
					got = append(got, f.Type+" "+f.PropertyPath)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			if tt.want == nil && (p.DateFilter != "createdAt" || len(p.TransactionTypes) != 2 || p.Start.Location() != time.UTC) {
				t.Fatalf("defaults %+v", p)
			}
		})
	}
}

func TestSafeText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"": "", "Order 42": "Order 42", "=SUM(A1)": "'=SUM(A1)", "+44": "'+44",
		"-1": "'-1", "@x": "'@x", "\tx": "'\tx", "a=b": "a=b"} {
		if got := safeText(in); got != want {
			t.Errorf("safeText(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNeutraliseEveryTextColumn: every cell of every type but its numbers
// and times goes through safeText (issue 28, item 5: the AUDIT_LOG's
// requestId and ip were written raw); a negative amount stays a number.
func TestNeutraliseEveryTextColumn(t *testing.T) {
	t.Parallel()
	for typ, header := range Headers {
		rec := make([]string, len(header))
		for i := range rec {
			rec[i] = "-1"
		}
		neutralise(typ, rec)
		for i, name := range header {
			want := "'-1"
			if numberColumns[name] {
				want = "-1"
			}
			if rec[i] != want {
				t.Errorf("%s.%s: %q, want %q", typ, name, rec[i], want)
			}
		}
	}
	if got := textColumns[AuditLog]; len(got) != len(Headers[AuditLog])-1 {
		t.Errorf("AUDIT_LOG text columns %v: every one but occurredAt", got)
	}
}
