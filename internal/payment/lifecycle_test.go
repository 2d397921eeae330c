package payment

import (
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/errs"
)

var lifecycleEpoch = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

// allowedMoves is decisions.md's table, written out again independently of
// the implementation's.
var allowedMoves = map[string]bool{
	"NEW_PAYMENT>REFUSED_BY_RISK": true, "NEW_PAYMENT>BANK_REDIRECT": true, "NEW_PAYMENT>ABANDONED_BY_USER": true,
	"BANK_REDIRECT>AUTHORISED_BY_USER": true, "BANK_REDIRECT>DELAYED_AT_BANK": true, "BANK_REDIRECT>REFUSED_BY_BANK": true,
	"BANK_REDIRECT>ERROR_AT_BANK": true, "BANK_REDIRECT>CANCELLED_BY_USER": true, "BANK_REDIRECT>ABANDONED_BY_USER": true,
	"AUTHORISED_BY_USER>COMPLETED": true, "DELAYED_AT_BANK>COMPLETED": true, "DELAYED_AT_BANK>REFUSED_BY_BANK": true,
	"COMPLETED>RECEIVED": true, "RECEIVED>SETTLED": true, "COMPLETED>NOT_RECEIVED": true, "NOT_RECEIVED>RECEIVED": true,
	"BANK_REDIRECT>RECEIVED": true, "AUTHORISED_BY_USER>RECEIVED": true, "DELAYED_AT_BANK>RECEIVED": true,
}

// testPayment is a NEW_PAYMENT of the shop fixture on system sys, with
// institution (may be empty).
func testPayment(sys bank.PaymentSystem, institution string) Payment {
	r := validEU()
	if sys == bank.OpenBankingUK {
		r = validUK()
	}
	r = r.withInstitution(institution)
	r.Checkout = nil
	p := Payment{ID: "4f0c9a5e-7d2b-4a51-9d3e-2f6b1c8a7e10", CustomerID: "c1", ClientID: "shop-client", Channel: ChannelHosted,
		Request: r, Status: StatusNew, History: []StatusUpdate{{Status: StatusNew, CreatedAt: lifecycleEpoch}},
		UniqueReference: "REF 1", CreatedAt: lifecycleEpoch, UpdatedAt: lifecycleEpoch}
	p.Next = timedMoveAfter(p, lifecycleEpoch, "")
	return p
}

func TestEveryMoveOfTheTableAndNothingElse(t *testing.T) {
	t.Parallel()
	for _, from := range Statuses {
		for _, to := range Statuses {
			p := testPayment(bank.OpenBankingEU, testBankDE)
			p.Status = from
			err := p.move(to, lifecycleEpoch.Add(time.Minute), StatusCompleted)
			key := string(from) + ">" + string(to)
			switch {
			case allowedMoves[key] && err != nil:
				t.Errorf("%s refused: %v", key, err)
			case allowedMoves[key]:
				if p.Status != to || p.History[len(p.History)-1].Status != to || !p.UpdatedAt.Equal(lifecycleEpoch.Add(time.Minute)) {
					t.Errorf("%s: status %s, history %v", key, p.Status, p.History)
				}
			case err == nil:
				t.Errorf("%s allowed, but it is not in the table", key)
			case from.Initiating() && !errs.Is(err, errs.Conflict):
				t.Errorf("%s: %v, want CONFLICT while the initiation is under way", key, err)
			case !from.Initiating() && !errs.Is(err, errs.NotModifiable):
				t.Errorf("%s: %v, want RESOURCE_NOT_MODIFIABLE once the initiation ended", key, err)
			}
		}
	}
}

func TestFlowFollowsTheStatus(t *testing.T) {
	t.Parallel()
	want := map[Status]FlowStatus{
		StatusNew: FlowProcessing, StatusBankRedirect: FlowProcessing, StatusAuthorisedByUser: FlowProcessing,
		StatusDelayedAtBank: FlowProcessing, StatusCompleted: FlowFinished, StatusReceived: FlowFinished,
		StatusSettled: FlowFinished, StatusNotReceived: FlowFinished, StatusCancelledByUser: FlowAborted,
		StatusAbandonedByUser: FlowAborted, StatusRefusedByRisk: FlowException, StatusRefusedByBank: FlowException,
		StatusErrorAtBank: FlowException,
	}
	for _, s := range Statuses {
		if got := s.Flow(); got != want[s] {
			t.Errorf("%s.Flow() = %s, want %s", s, got, want[s])
		}
	}
}

func TestOutcomes(t *testing.T) {
	t.Parallel()
	l := NewLifecycle(bank.Default())
	tests := []struct {
		outcome string
		history string // statuses after NEW_PAYMENT
		notes   string // status/detailedStatus of each notification
		next    Status // the timed move left, if any
	}{
		{"COMPLETED", "BANK_REDIRECT AUTHORISED_BY_USER COMPLETED", "PENDING/BANK_REDIRECT COMPLETED/COMPLETED", ""},
		{"refused_by_bank", "BANK_REDIRECT REFUSED_BY_BANK", "PENDING/BANK_REDIRECT FAILED/REFUSED_BY_BANK", ""},
		{"ERROR_AT_BANK", "BANK_REDIRECT ERROR_AT_BANK", "PENDING/BANK_REDIRECT FAILED/ERROR_AT_BANK", ""},
		{"CANCELLED_BY_USER", "BANK_REDIRECT CANCELLED_BY_USER", "PENDING/BANK_REDIRECT FAILED/CANCELLED_BY_USER", ""},
		{"ABANDONED_BY_USER", "ABANDONED_BY_USER", "FAILED/ABANDONED_BY_USER", ""},
		{"REFUSED_BY_RISK", "REFUSED_BY_RISK", "FAILED/REFUSED_BY_RISK", ""},
		{"DELAYED_AT_BANK > COMPLETED", "BANK_REDIRECT DELAYED_AT_BANK", "PENDING/BANK_REDIRECT PENDING/DELAYED_AT_BANK", StatusCompleted},
		{"DELAYED_AT_BANK>REFUSED_BY_BANK", "BANK_REDIRECT DELAYED_AT_BANK", "PENDING/BANK_REDIRECT PENDING/DELAYED_AT_BANK", StatusRefusedByBank},
	}
	for _, tt := range tests {
		o, ok := ParseOutcome(tt.outcome)
		if !ok {
			t.Fatalf("ParseOutcome(%q) failed", tt.outcome)
		}
		c, err := l.Apply(testPayment(bank.OpenBankingEU, ""), Event{Outcome: o}, lifecycleEpoch.Add(time.Minute))
		if err != nil {
			t.Fatalf("%s: %v", tt.outcome, err)
		}
		var hist []string
		for _, u := range c.Payment.History[1:] {
			hist = append(hist, string(u.Status))
		}
		if got := strings.Join(hist, " "); got != tt.history {
			t.Errorf("%s: history %s, want %s", tt.outcome, got, tt.history)
		}
		if got := noteSummary(t, c.Messages); got != tt.notes {
			t.Errorf("%s: notifications %s, want %s", tt.outcome, got, tt.notes)
		}
		switch next := c.Payment.Next; {
		case tt.next == "" && next != nil:
			t.Errorf("%s: timed move %+v left", tt.outcome, next)
		case tt.next != "" && (next == nil || next.To != tt.next || !next.At.Equal(lifecycleEpoch.Add(time.Minute+BankDelay))):
			t.Errorf("%s: timed move %+v, want %s after %s", tt.outcome, next, tt.next, BankDelay)
		}
	}
	for _, bad := range []string{"", "PAID", "NOT_RECEIVED", "BANK_REDIRECT", "DELAYED_AT_BANK"} {
		if _, ok := ParseOutcome(bad); ok {
			t.Errorf("ParseOutcome(%q) accepted", bad)
		}
	}
}

func TestSenderIsReportedOnAuthorisation(t *testing.T) {
	t.Parallel()
	l := NewLifecycle(bank.Default())
	for _, tt := range []struct {
		sys         bank.PaymentSystem
		institution string
		holder      string
		wantName    string
	}{
		{bank.OpenBankingEU, "", "", "ANNA MÜLLER"},
		{bank.OpenBankingUK, testBankGB, "Wile E. Coyote", "Wile E. Coyote"},
	} {
		p := testPayment(tt.sys, tt.institution)
		o, _ := ParseOutcome("COMPLETED")
		c, err := l.Apply(p, Event{Outcome: o, HolderName: tt.holder}, lifecycleEpoch)
		if err != nil {
			t.Fatal(err)
		}
		s := c.Payment.Sender
		if s == nil || s.Name != tt.wantName || s.IBAN == "" {
			t.Fatalf("%s: sender %+v", tt.sys, s)
		}
		if tt.sys == bank.OpenBankingUK && (len(s.SortCode) != 6 || len(s.AccountNumber) != 8) {
			t.Errorf("UK sender %+v has no sort code and account number", s)
		}
		if c.Messages[0].Body != nil && strings.Contains(string(c.Messages[0].Body), `"sender"`) {
			t.Errorf("BANK_REDIRECT notification carries a sender before authorisation: %s", c.Messages[0].Body)
		}
		if !strings.Contains(string(c.Messages[1].Body), `"name":"`+tt.wantName+`"`) {
			t.Errorf("COMPLETED notification without the sender: %s", c.Messages[1].Body)
		}
	}
}

func TestTimedMoves(t *testing.T) {
	t.Parallel()
	l := NewLifecycle(bank.Default())
	p := testPayment(bank.OpenBankingEU, testBankDE)
	if c, err := l.Apply(p, Event{Timed: true}, lifecycleEpoch.Add(AbandonAfter-time.Second)); err != nil || c.Moved() {
		t.Fatalf("abandoned early: %v %v", c.Payment.Status, err)
	}
	c, err := l.Apply(p, Event{Timed: true}, lifecycleEpoch.Add(AbandonAfter+time.Hour))
	if err != nil || c.Payment.Status != StatusAbandonedByUser || !c.Payment.UpdatedAt.Equal(lifecycleEpoch.Add(AbandonAfter)) {
		t.Fatalf("abandonment: %s at %s, %v", c.Payment.Status, c.Payment.UpdatedAt, err)
	}
	// A payer who comes back late finds the payment abandoned.
	o, _ := ParseOutcome("COMPLETED")
	_, err = l.Apply(p, Event{Outcome: o}, lifecycleEpoch.Add(AbandonAfter))
	if !errs.Is(err, errs.NotModifiable) {
		t.Fatalf("completing an abandoned payment: %v", err)
	}
}

// noteSummary lists "status/detailedStatus" of gateway messages.
func noteSummary(t fataler, msgs []notifyMessage) string {
	t.Helper()
	var out []string
	for _, m := range msgs {
		g := decodeGateway(t, m)
		out = append(out, g.Status+"/"+g.DetailedStatus)
	}
	return strings.Join(out, " ")
}
