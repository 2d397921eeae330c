package payment

import (
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/notify"
)

// endings are the notifications decisions.md lists for every way a
// payment's initiation can end, keyed by its status history; written out by
// hand, independently of the implementation.
var endings = map[string]string{
	"NEW_PAYMENT REFUSED_BY_RISK":                               "FAILED/REFUSED_BY_RISK",
	"NEW_PAYMENT ABANDONED_BY_USER":                             "FAILED/ABANDONED_BY_USER",
	"NEW_PAYMENT BANK_REDIRECT ABANDONED_BY_USER":               "PENDING/BANK_REDIRECT FAILED/ABANDONED_BY_USER",
	"NEW_PAYMENT BANK_REDIRECT AUTHORISED_BY_USER COMPLETED":    "PENDING/BANK_REDIRECT COMPLETED/COMPLETED",
	"NEW_PAYMENT BANK_REDIRECT DELAYED_AT_BANK COMPLETED":       "PENDING/BANK_REDIRECT PENDING/DELAYED_AT_BANK COMPLETED/COMPLETED",
	"NEW_PAYMENT BANK_REDIRECT DELAYED_AT_BANK REFUSED_BY_BANK": "PENDING/BANK_REDIRECT PENDING/DELAYED_AT_BANK FAILED/REFUSED_BY_BANK",
	"NEW_PAYMENT BANK_REDIRECT REFUSED_BY_BANK":                 "PENDING/BANK_REDIRECT FAILED/REFUSED_BY_BANK",
	"NEW_PAYMENT BANK_REDIRECT ERROR_AT_BANK":                   "PENDING/BANK_REDIRECT FAILED/ERROR_AT_BANK",
	"NEW_PAYMENT BANK_REDIRECT CANCELLED_BY_USER":               "PENDING/BANK_REDIRECT FAILED/CANCELLED_BY_USER",
}

// TestLifecycleProperties applies random sequences of events (sandbox
// outcomes, attempts to reach any status, bank choices, time passing) and
// checks that a payment only ever follows the table, that its flow, timed
// move and notifications stay in step, and that every ended initiation sent
// exactly the notifications decisions.md lists.
func TestLifecycleProperties(t *testing.T) {
	t.Parallel()
	l := NewLifecycle(bank.Default())
	names := OutcomeNames()
	banks := bank.Default().List(bank.Filter{})
	rapid.Check(t, func(t *rapid.T) {
		sys := rapid.SampledFrom([]bank.PaymentSystem{bank.OpenBankingEU, bank.OpenBankingUK}).Draw(t, "system")
		p := testPayment(sys, "")
		if rapid.Bool().Draw(t, "expected") {
			p.ConnectAccountID = "5b000000-0000-4000-8000-0000000000e1" // a Connect payment
		}
		now := lifecycleEpoch
		var sent []notify.Message
		for i, n := 0, rapid.IntRange(1, 10).Draw(t, "events"); i < n; i++ {
			var ev Event
			switch rapid.IntRange(0, 3).Draw(t, "kind") {
			case 0:
				ev.Outcome, _ = ParseOutcome(rapid.SampledFrom(names).Draw(t, "outcome"))
			case 1:
				ev.Outcome = Outcome{rapid.SampledFrom(Statuses).Draw(t, "status")}
			case 2:
				now = now.Add(time.Duration(rapid.Int64Range(0, int64(40*time.Minute)).Draw(t, "wait")))
				ev.Timed = true
			case 3:
				ev.BankID = rapid.SampledFrom(banks).Draw(t, "bank").ID
				ev.Outcome = Outcome{StatusBankRedirect}
			}
			c, err := l.Apply(p, ev, now)
			if err != nil {
				if c := errs.CodeOf(err); c != errs.Conflict && c != errs.NotModifiable {
					t.Fatalf("event %+v failed with %v", ev, err)
				}
				continue
			}
			if c.From != p.Status {
				t.Fatalf("change from %s, payment was %s", c.From, p.Status)
			}
			p = c.Payment
			sent = append(sent, c.Messages...)
			checkPayment(t, p, sent, now)
		}
	})
}

// checkPayment asserts the invariants of a payment and the notifications it
// sent so far.
func checkPayment(t *rapid.T, p Payment, sent []notify.Message, now time.Time) {
	var path []string
	for i, u := range p.History {
		path = append(path, string(u.Status))
		if i == 0 && u.Status != StatusNew {
			t.Fatalf("history starts with %s", u.Status)
		}
		if i > 0 && !allowedMoves[string(p.History[i-1].Status)+">"+string(u.Status)] {
			t.Fatalf("history %v makes a move outside the table", path)
		}
		if i > 0 && u.CreatedAt.Before(p.History[i-1].CreatedAt) {
			t.Fatalf("history %v goes back in time", p.History)
		}
	}
	if last := p.History[len(p.History)-1].Status; last != p.Status {
		t.Fatalf("status %s, last history entry %s", p.Status, last)
	}
	var notes []string
	for _, m := range sent {
		if m.Type != "" { // Connect: payment_received on RECEIVED, payment_not_received on NOT_RECEIVED
			if m.Type != "payment_received" && m.Type != "payment_not_received" || !slices.ContainsFunc(p.History, func(u StatusUpdate) bool {
				return m.Type == "payment_received" && u.Status == StatusReceived || m.Type == "payment_not_received" && u.Status == StatusNotReceived
			}) {
				t.Fatalf("notification %s %s without its move in %v", m.Type, m.Body, p.History)
			}
			continue
		}
		g := decodeGateway(t, m)
		if g.Payment != p.ID || g.Reference != p.UniqueReference || g.Amount != p.Amount() {
			t.Fatalf("notification %s does not describe the payment", m.Body)
		}
		if (g.DetailedStatus == string(StatusCompleted) || g.DetailedStatus == string(StatusDelayedAtBank)) && g.Sender == nil {
			t.Fatalf("notification %s without the sender the bank reported", m.Body)
		}
		notes = append(notes, g.Status+"/"+g.DetailedStatus)
	}
	if end := slices.IndexFunc(p.History, func(u StatusUpdate) bool { return !u.Status.Initiating() }); end >= 0 {
		// What follows the end (Connect: RECEIVED, SETTLED, NOT_RECEIVED)
		// sends no gateway notification.
		key := strings.Join(path[:end+1], " ")
		want, ok := endings[key]
		if !ok {
			t.Fatalf("initiation ended along %s, which decisions.md does not list", key)
		}
		if got := strings.Join(notes, " "); got != want {
			t.Fatalf("%s sent %q, want %q", key, got, want)
		}
	}
	switch p.Status {
	case StatusNew, StatusBankRedirect:
		if p.Next == nil || p.Next.To != StatusAbandonedByUser || !p.Next.At.Equal(p.CreatedAt.Add(AbandonAfter)) {
			t.Fatalf("%s without the abandonment timer: %+v", p.Status, p.Next)
		}
		if !now.Before(p.CreatedAt.Add(AbandonAfter)) {
			t.Fatalf("still %s %s after creation", p.Status, now.Sub(p.CreatedAt))
		}
	case StatusDelayedAtBank:
		if p.Next == nil || (p.Next.To != StatusCompleted && p.Next.To != StatusRefusedByBank) {
			t.Fatalf("DELAYED_AT_BANK without the bank's answer pending: %+v", p.Next)
		}
	case StatusCompleted:
		if p.Expected() && (p.Next == nil || p.Next.To != StatusNotReceived) {
			t.Fatalf("an expected COMPLETED payment without its NOT_RECEIVED timer: %+v", p.Next)
		}
		if !p.Expected() && p.Next != nil {
			t.Fatalf("COMPLETED keeps a timed move %+v", p.Next)
		}
	default:
		if p.Next != nil {
			t.Fatalf("%s keeps a timed move %+v", p.Status, p.Next)
		}
	}
}
