package xs2a

import (
	"testing"

	"github.com/bankrail/bankrail/internal/payment"
)

// Every transactionStatus of the standard has its row, and each reading
// has a defined outcome on the payer's return and in the background.
func TestTransactionStatusTable(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		code       string
		phase      Phase
		onReturn   payment.Status
		background payment.Status // from BANK_REDIRECT; "" none (read again)
		afterDelay payment.Status // from DELAYED_AT_BANK
	}{
		{"RCVD", Received, payment.StatusDelayedAtBank, "", ""},
		{"PDNG", Pending, payment.StatusDelayedAtBank, "", ""},
		{"ACTC", Pending, payment.StatusDelayedAtBank, "", ""},
		{"ACCP", Pending, payment.StatusDelayedAtBank, "", ""},
		{"ACFC", Pending, payment.StatusDelayedAtBank, "", ""},
		{"PATC", Pending, payment.StatusDelayedAtBank, "", ""},
		{"PART", Pending, payment.StatusDelayedAtBank, "", ""},
		{"ACSP", Accepted, payment.StatusCompleted, payment.StatusCompleted, payment.StatusCompleted},
		{"ACSC", Accepted, payment.StatusCompleted, payment.StatusCompleted, payment.StatusCompleted},
		{"ACCC", Accepted, payment.StatusCompleted, payment.StatusCompleted, payment.StatusCompleted},
		{"ACWC", Accepted, payment.StatusCompleted, payment.StatusCompleted, payment.StatusCompleted},
		{"ACWP", Accepted, payment.StatusCompleted, payment.StatusCompleted, payment.StatusCompleted},
		{"RJCT", Rejected, payment.StatusRefusedByBank, payment.StatusRefusedByBank, payment.StatusRefusedByBank},
		{"CANC", Cancelled, payment.StatusCancelledByUser, payment.StatusCancelledByUser, payment.StatusRefusedByBank},
	} {
		if got := PhaseOf(tt.code); got != tt.phase {
			t.Errorf("%s: phase %d, want %d", tt.code, got, tt.phase)
		}
		r := Reading{Phase: tt.phase, Code: tt.code}
		if got := OnReturn(r); got != string(tt.onReturn) {
			t.Errorf("%s on return: %s, want %s", tt.code, got, tt.onReturn)
		}
		got, ok := InBackground(payment.StatusBankRedirect, r)
		if ok != (tt.background != "") || got != string(tt.background) {
			t.Errorf("%s in the background: %q %v, want %q", tt.code, got, ok, tt.background)
		}
		got, _ = InBackground(payment.StatusDelayedAtBank, r)
		if got != string(tt.afterDelay) {
			t.Errorf("%s after a delay: %q, want %q", tt.code, got, tt.afterDelay)
		}
	}
	if len(StatusCodes()) != 14 {
		t.Errorf("%d codes, the standard has 14", len(StatusCodes()))
	}
	if got := OnReturn(Reading{Phase: Received, Nok: true}); got != string(payment.StatusCancelledByUser) {
		t.Errorf("RCVD at the nok redirect: %s", got)
	}
	if got := OnReturn(Reading{Failed: true}); got != string(payment.StatusErrorAtBank) {
		t.Errorf("an unreadable status: %s", got)
	}
	if PhaseOf("XXXX") != Unknown {
		t.Error("an unknown code has a phase")
	}
	if _, ok := InBackground(payment.StatusBankRedirect, Reading{Failed: true}); ok {
		t.Error("an unreadable status moves a payment in the background")
	}
	for _, o := range []string{OnReturn(Reading{Phase: Pending}), OnReturn(Reading{Phase: Accepted})} {
		if _, ok := payment.ParseBankOutcome(o); !ok {
			t.Errorf("%s is not an outcome the checkout reads", o)
		}
	}
}

// Amounts are exact decimals in the currency's exponent, both ways.
func TestAmounts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		minor    int64
		currency string
		want     string
	}{
		{1050, "EUR", "10.50"}, {5, "EUR", "0.05"}, {0, "EUR", "0.00"}, {1000, "JPY", "1000"}, {1234, "BHD", "1.234"},
		{99999999999999, "EUR", "999999999999.99"},
	} {
		a, err := FormatAmount(tt.minor, tt.currency)
		if err != nil || a.Amount != tt.want || a.Currency != tt.currency {
			t.Errorf("FormatAmount(%d, %s) = %+v %v, want %s", tt.minor, tt.currency, a, err, tt.want)
			continue
		}
		if back, err := ParseAmount(a); err != nil || back != tt.minor {
			t.Errorf("ParseAmount(%+v) = %d %v", a, back, err)
		}
	}
	for _, bad := range []Amount{{"EUR", "1.234"}, {"EUR", "-1"}, {"EUR", "1."}, {"EUR", ".5"}, {"EUR", "1e3"}, {"XXX", "1"},
		{"JPY", "1.0"}, {"EUR", "123456789012345"}} {
		if _, err := ParseAmount(bad); err == nil {
			t.Errorf("ParseAmount(%+v) takes it", bad)
		}
	}
	if _, err := FormatAmount(1, "XXX"); err == nil {
		t.Error("an unknown currency is formatted")
	}
	if _, err := FormatAmount(-1, "EUR"); err == nil {
		t.Error("a negative amount is formatted")
	}
}
