package camt

import (
	"errors"
	"fmt"
)

// finish turns the entry read into an Entry: its amounts parsed exactly,
// its direction and status checked, its transactions each with an amount.
// What is wrong is the entry's Problem, naming it.
func (e *rawEntry) finish() Entry {
	out := e.Entry
	out.Status = Status(e.status)
	out.Currency = e.ccy
	amount, err := parseAmount(e.amount, e.ccy)
	out.Amount = amount
	switch {
	case err != nil:
		out.Problem = err
	case e.ind != "CRDT" && e.ind != "DBIT":
		out.Problem = fmt.Errorf("the credit/debit indicator (CdtDbtInd) is %q, not CRDT or DBIT", e.ind)
	case e.status == "":
		out.Problem = errors.New("it has no status (Sts)")
	}
	out.Credit = e.ind == "CRDT"
	if out.Problem == nil {
		out.Transactions, out.Problem = e.transactions(out)
	}
	if out.Problem != nil {
		out.Problem = fmt.Errorf("%s: %w", out.Name(), out.Problem)
		out.Transactions = nil
	}
	return out
}

// transactions are the entry's TxDtls, or the entry itself as one. A
// transaction without an amount takes the entry's when it is the only
// one; the transactions' signed amounts add up to the entry's.
func (e *rawEntry) transactions(out Entry) ([]Transaction, error) {
	if len(e.txs) == 0 {
		return []Transaction{{Amount: out.Amount, Currency: out.Currency, Credit: out.Credit,
			Return: e.subFamily == "RRTN"}}, nil
	}
	txs := make([]Transaction, len(e.txs))
	var sum int64
	for i := range e.txs {
		r := &e.txs[i]
		t := r.Transaction
		t.Credit = out.Credit
		if r.ind == "CRDT" || r.ind == "DBIT" {
			t.Credit = r.ind == "CRDT"
		}
		text, ccy := r.amount, r.ccy
		if text == "" && r.txCcy == out.Currency {
			text, ccy = r.txAmount, r.txCcy
		}
		switch {
		case text == "" && len(e.txs) == 1:
			t.Amount, t.Currency = out.Amount, out.Currency
		case text == "":
			return nil, fmt.Errorf("transaction %d of the batch has no amount", i+1)
		case ccy != out.Currency:
			return nil, fmt.Errorf("transaction %d is in %s, the entry in %s", i+1, ccy, out.Currency)
		default:
			a, err := parseAmount(text, ccy)
			if err != nil {
				return nil, fmt.Errorf("transaction %d: %w", i+1, err)
			}
			t.Amount, t.Currency = a, ccy
		}
		t.Return = t.Return || r.subFamily == "RRTN" || (e.subFamily == "RRTN" && len(e.txs) == 1)
		t.References = append(append([]string(nil), r.strd...), r.ustrd...)
		t.Party = r.dbtr
		if !t.Credit {
			t.Party = r.cdtr
		}
		if t.Credit == out.Credit {
			sum += t.Amount
		} else {
			sum -= t.Amount
		}
		txs[i] = t
	}
	if sum != out.Amount {
		return nil, fmt.Errorf("its transactions add up to %s, the entry's amount is %s",
			formatMinor(sum, out.Currency), formatMinor(out.Amount, out.Currency))
	}
	return txs, nil
}
