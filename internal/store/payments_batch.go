package store

import (
	"context"
	"fmt"

	"github.com/bankrail/bankrail/internal/event"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/payment"
)

// eventRows is how many events one INSERT of MoveAll takes.
const eventRows = 100

// MoveAll updates each payment of cs as Move does (CONFLICT when one is no
// longer in its From status), then writes all their new history in
// INSERTs of eventRows.
func (r payments) MoveAll(ctx context.Context, cs []payment.Change) error {
	if r.tx == nil {
		return r.s.InTx(ctx, func(tx *Tx) error { return tx.Payments().MoveAll(ctx, cs) })
	}
	var events [][]any
	for _, c := range cs {
		st, err := paymentState(c.Payment)
		if err != nil {
			return err
		}
		if err := r.update(ctx, c, st); err != nil {
			return err
		}
		p := c.Payment
		for i := c.Stored; i < len(p.History); i++ {
			u := p.History[i]
			events = append(events, []any{ids.New(), p.CustomerID, event.SubjectPayment, p.ID, i + 1,
				event.PaymentStatusChanged, string(u.Status), micros(u.CreatedAt)})
		}
	}
	for lo := 0; lo < len(events); lo += eventRows {
		b := r.s.binder()
		var rows []string
		for _, e := range events[lo:min(lo+eventRows, len(events))] {
			rows = append(rows, b.row(e...))
		}
		_, err := r.tx.ExecContext(ctx, `INSERT INTO events (id, customer_id, subject_type, subject_id, seq, type, status, occurred_at)
			VALUES `+joinRows(rows), b.args...)
		if err := translate(err, fmt.Sprintf("status history of %d payments", len(cs))); err != nil {
			return err
		}
	}
	return nil
}
