package store

import (
	"testing"

	"github.com/bankrail/bankrail/internal/payment"
)

// The moves of a payment come back in seq order whatever order the
// database aggregated them in; a malformed entry is an error.
func TestParseViewHistory(t *testing.T) {
	t.Parallel()
	h, err := parseViewHistory(nil, "3:COMPLETED:30,2:BANK_REDIRECT:20,4:RECEIVED:40")
	if err != nil || len(h) != 3 || h[0].Status != payment.StatusBankRedirect || h[1].Status != payment.StatusCompleted ||
		h[2].Status != payment.StatusReceived || h[2].CreatedAt.UnixMicro() != 40 {
		t.Fatalf("%+v %v", h, err)
	}
	if h, err := parseViewHistory(nil, ""); err != nil || len(h) != 0 {
		t.Fatalf("empty: %+v %v", h, err)
	}
	for _, bad := range []string{"COMPLETED:30", "x:COMPLETED:30", "2:COMPLETED:y"} {
		if _, err := parseViewHistory(nil, bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
