package ledger_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/money"
)

func eur(n int64) money.Money { return money.Must(money.New(n, "EUR")) }
func gbp(n int64) money.Money { return money.Must(money.New(n, "GBP")) }

func TestValidateEntries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		postings []ledger.Posting
		wantErr  string
	}{
		{"balanced", []ledger.Posting{{"", ledger.External, eur(-5)}, {"a", ledger.Available, eur(5)}}, ""},
		{"three lines", []ledger.Posting{{"", ledger.External, eur(-5)}, {"a", ledger.Available, eur(3)}, {"b", ledger.Pending, eur(2)}}, ""},
		{"one line", []ledger.Posting{{"a", ledger.Available, eur(5)}}, "at least two"},
		{"does not sum to zero", []ledger.Posting{{"", ledger.External, eur(-5)}, {"a", ledger.Available, eur(4)}}, "does not balance"},
		{"currencies do not net", []ledger.Posting{{"", ledger.External, eur(-5)}, {"a", ledger.Available, gbp(5)}}, "does not balance"},
		{"zero line", []ledger.Posting{{"", ledger.External, eur(0)}, {"a", ledger.Available, eur(0)}}, "moves"},
		{"invalid money", []ledger.Posting{{"", ledger.External, money.Money{}}, {"a", ledger.Available, eur(5)}}, "moves"},
		{"external with account", []ledger.Posting{{"a", ledger.External, eur(-5)}, {"a", ledger.Available, eur(5)}}, "bucket"},
		{"account bucket without account", []ledger.Posting{{"", ledger.External, eur(-5)}, {"", ledger.Available, eur(5)}}, "bucket"},
		{"unknown bucket", []ledger.Posting{{"", ledger.External, eur(-5)}, {"a", "SPARE", eur(5)}}, "unknown bucket"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ledger.Validate(ledger.Entry{ID: "e", Postings: tc.postings})
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("Validate = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestOpenAndSettle(t *testing.T) {
	t.Parallel()
	b := ledger.NewBook()
	b.Open("a", "EUR")
	in := ledger.Transaction{ID: "t1", AccountID: "a", Operation: ledger.Incoming, Status: ledger.TxProcessing, Amount: eur(100)}
	e, err := ledger.Open(in, "e1")
	if err != nil || b.Apply(e) != nil {
		t.Fatal(err)
	}
	if got := b.Balance("a"); got != (ledger.Balance{Pending: 100}) {
		t.Fatalf("after announce %+v", got)
	}
	// Pending money cannot be held.
	hold := ledger.Transaction{ID: "t2", AccountID: "a", Operation: ledger.Outgoing, Status: ledger.TxProcessing, Amount: eur(1)}
	e, _ = ledger.Open(hold, "e2")
	if err := b.Apply(e); !errors.Is(err, ledger.ErrInsufficientFunds) || !errs.Is(err, errs.Conflict) {
		t.Fatalf("hold on pending funds: %v", err)
	}
	in, e, err = ledger.Settle(in, ledger.TxCompleted, "e3", t0)
	if err != nil || b.Apply(e) != nil || in.Status != ledger.TxCompleted {
		t.Fatal(err)
	}
	hold.Amount = eur(60)
	e, _ = ledger.Open(hold, "e4")
	if err := b.Apply(e); err != nil {
		t.Fatal(err)
	}
	if got := b.Balance("a"); got != (ledger.Balance{Available: 40, Held: 60}) {
		t.Fatalf("after hold %+v", got)
	}
	_, e, _ = ledger.Settle(hold, ledger.TxFailed, "e5", t0)
	if err := b.Apply(e); err != nil {
		t.Fatal(err)
	}
	if got := b.Balance("a"); got != (ledger.Balance{Available: 100}) {
		t.Fatalf("after failed hold %+v", got)
	}
	if _, _, err := ledger.Settle(in, ledger.TxFailed, "e6", t0); !errs.Is(err, errs.NotModifiable) {
		t.Fatalf("settling a completed transaction: %v", err)
	}
	if _, err := ledger.Open(ledger.Transaction{ID: "t3", AccountID: "a", Operation: ledger.Incoming, Status: ledger.TxProcessing, Amount: eur(-1)}, "e7"); err == nil {
		t.Fatal("a negative amount opened")
	}
	// The wrong currency is refused.
	e, _ = ledger.Open(ledger.Transaction{ID: "t4", AccountID: "a", Operation: ledger.Incoming, Status: ledger.TxCompleted, Amount: gbp(1)}, "e8")
	if err := b.Apply(e); err == nil {
		t.Fatal("GBP posted to a EUR account")
	}
}
