package ledger_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/money"
)

// model is what the balances must be, kept by hand beside the book.
type model struct {
	book     *ledger.Book
	accounts []string
	currency map[string]string
	want     map[string]ledger.Balance
	open     []ledger.Transaction // PROCESSING
	done     []ledger.Transaction // incoming COMPLETED, may be reversed
	n        int
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (m *model) id() string { m.n++; return fmt.Sprintf("id-%d", m.n) }

func (m *model) tx(t *rapid.T, op ledger.Operation, st ledger.TxStatus) ledger.Transaction {
	a := rapid.SampledFrom(m.accounts).Draw(t, "account")
	amt := rapid.Int64Range(1, 5000).Draw(t, "amount")
	return ledger.Transaction{ID: m.id(), AccountID: a, Type: ledger.TypeGatewayPayment, Operation: op, Status: st,
		Amount: money.Must(money.New(amt, m.currency[a])), CreatedAt: t0, UpdatedAt: t0}
}

// apply posts e and checks that the book accepted it exactly when the
// model says the balance allows it.
func (m *model) apply(t *rapid.T, e ledger.Entry, account string, want ledger.Balance) bool {
	err := m.book.Apply(e)
	if want.Negative() {
		if !errors.Is(err, ledger.ErrInsufficientFunds) {
			t.Fatalf("entry %v on balance %+v: err %v, want insufficient funds", e, m.want[account], err)
		}
		return false
	}
	if err != nil {
		t.Fatalf("entry %v on balance %+v: %v", e, m.want[account], err)
	}
	m.want[account] = want
	return true
}

func (m *model) check(t *rapid.T) {
	world := map[string]int64{}
	for _, a := range m.accounts {
		got := m.book.Balance(a)
		if got != m.want[a] {
			t.Fatalf("account %s balance %+v, want %+v", a, got, m.want[a])
		}
		if got.Negative() {
			t.Fatalf("account %s balance %+v is negative", a, got)
		}
		world[m.currency[a]] += got.Available + got.Pending + got.Held
	}
	for cur, sum := range world {
		if sum+m.book.World(cur) != 0 {
			t.Fatalf("%s books do not balance: accounts %d, world %d", cur, sum, m.book.World(cur))
		}
	}
	replayed := ledger.Replay(m.book.Entries())
	for _, a := range m.accounts {
		if replayed[a] != m.book.Balance(a) {
			t.Fatalf("account %s replayed %+v, book %+v", a, replayed[a], m.book.Balance(a))
		}
	}
	for _, e := range m.book.Entries() {
		if err := ledger.Validate(e); err != nil {
			t.Fatal(err)
		}
	}
}

func pick(t *rapid.T, list *[]ledger.Transaction) (ledger.Transaction, bool) {
	if len(*list) == 0 {
		return ledger.Transaction{}, false
	}
	i := rapid.IntRange(0, len(*list)-1).Draw(t, "index")
	tx := (*list)[i]
	*list = append((*list)[:i], (*list)[i+1:]...)
	return tx, true
}

// TestBooksBalanceAndNothingGoesNegative: over random sequences of
// credits (at once or pending), holds, debits, failures and reversals on
// accounts of several currencies, every entry balances, the accounts and
// the outside world sum to zero per currency, no balance goes negative,
// an entry is refused exactly when it would take one below zero, and the
// balances are the replay of the entries.
func TestBooksBalanceAndNothingGoesNegative(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		m := &model{book: ledger.NewBook(), currency: map[string]string{}, want: map[string]ledger.Balance{}}
		for i, cur := range []string{"EUR", "EUR", "GBP", "JPY"} {
			a := fmt.Sprintf("acct-%d", i)
			m.accounts = append(m.accounts, a)
			m.currency[a] = cur
			m.book.Open(a, cur)
		}
		t.Repeat(map[string]func(*rapid.T){
			"credit": func(t *rapid.T) {
				tx := m.tx(t, ledger.Incoming, ledger.TxCompleted)
				e, err := ledger.Open(tx, m.id())
				if err != nil {
					t.Fatal(err)
				}
				w := m.want[tx.AccountID]
				w.Available += tx.Amount.Minor()
				if m.apply(t, e, tx.AccountID, w) {
					m.done = append(m.done, tx)
				}
			},
			"announce": func(t *rapid.T) {
				tx := m.tx(t, ledger.Incoming, ledger.TxProcessing)
				e, _ := ledger.Open(tx, m.id())
				w := m.want[tx.AccountID]
				w.Pending += tx.Amount.Minor()
				if m.apply(t, e, tx.AccountID, w) {
					m.open = append(m.open, tx)
				}
			},
			"hold": func(t *rapid.T) {
				tx := m.tx(t, ledger.Outgoing, ledger.TxProcessing)
				e, _ := ledger.Open(tx, m.id())
				w := m.want[tx.AccountID]
				w.Available -= tx.Amount.Minor()
				w.Held += tx.Amount.Minor()
				if m.apply(t, e, tx.AccountID, w) {
					m.open = append(m.open, tx)
				}
			},
			"debit": func(t *rapid.T) {
				tx := m.tx(t, ledger.Outgoing, ledger.TxCompleted)
				e, _ := ledger.Open(tx, m.id())
				w := m.want[tx.AccountID]
				w.Available -= tx.Amount.Minor()
				m.apply(t, e, tx.AccountID, w)
			},
			"settle": func(t *rapid.T) {
				tx, ok := pick(t, &m.open)
				if !ok {
					t.Skip("nothing in flight")
				}
				to := rapid.SampledFrom([]ledger.TxStatus{ledger.TxCompleted, ledger.TxFailed, ledger.TxRejected}).Draw(t, "to")
				after, e, err := ledger.Settle(tx, to, m.id(), t0)
				if err != nil {
					t.Fatal(err)
				}
				w, amt := m.want[tx.AccountID], tx.Amount.Minor()
				switch {
				case tx.Operation == ledger.Incoming && to == ledger.TxCompleted:
					w.Pending, w.Available = w.Pending-amt, w.Available+amt
				case tx.Operation == ledger.Incoming:
					w.Pending -= amt
				case to == ledger.TxCompleted:
					w.Held -= amt
				default:
					w.Held, w.Available = w.Held-amt, w.Available+amt
				}
				if !m.apply(t, e, tx.AccountID, w) {
					t.Fatalf("settling %+v to %s was refused", tx, to)
				}
				if after.Operation == ledger.Incoming && to == ledger.TxCompleted {
					m.done = append(m.done, after)
				}
				if _, _, err := ledger.Settle(after, ledger.TxCompleted, m.id(), t0); err == nil {
					t.Fatalf("a %s transaction settled again", after.Status)
				}
			},
			"reverse": func(t *rapid.T) {
				tx, ok := pick(t, &m.done)
				if !ok {
					t.Skip("nothing to reverse")
				}
				back, e, err := ledger.Reverse(tx, m.id(), m.id(), t0)
				if err != nil {
					t.Fatal(err)
				}
				if back.Type != ledger.TypeBounceBack || back.Operation != ledger.Outgoing {
					t.Fatalf("reversal %+v", back)
				}
				w := m.want[tx.AccountID]
				w.Available -= tx.Amount.Minor()
				if !m.apply(t, e, tx.AccountID, w) {
					m.done = append(m.done, tx) // the money was spent meanwhile; it may come back later
				}
			},
			"": m.check,
		})
	})
}
