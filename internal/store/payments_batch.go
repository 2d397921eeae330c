package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/bankrail/bankrail/internal/errs"

	"github.com/bankrail/bankrail/internal/event"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/payment"
)

// eventRows is how many events one INSERT of MoveAll takes.
const eventRows = 100

// moveRows is how many payments one UPDATE of MoveAll moves: the UPDATE of
// a full part is prepared once (ledger_batch.go's batchWrites).
const moveRows = 100

// moveAll is MoveAll's UPDATE of n payments on d: Move's (movePayment)
// with the values of each payment a row of a VALUES list (columns
// column1..column23, as both engines name them), joined on the id and
// the status the payment is moved from. On PostgreSQL the values are
// cast: the parameters of a VALUES list are otherwise read as text.
func moveAll(d Dialect, n int) string {
	b := &binder{pg: d == Postgres}
	rows := make([]string, n)
	marks := make([]string, moveWidth)
	for i := range rows {
		for j := range marks {
			marks[j] = b.add(nil)
			if b.pg {
				marks[j] = "CAST(" + marks[j] + " AS " + moveTypes[j] + ")"
			}
		}
		rows[i] = "(" + strings.Join(marks, ", ") + ")"
	}
	return `UPDATE payments SET status = v.column3, request = v.column4, institution_id = v.column5, sender = v.column6,
		next_status = v.column7, next_at = v.column8, updated_at = v.column9, view_columns = v.column10,
		payment_type = v.column11, payer_email = v.column12, device_ip = v.column13, device_fingerprint = v.column14,
		beneficiary_name = v.column15, beneficiary_iban = v.column16, beneficiary_swift_bic = v.column17,
		beneficiary_sort_code = v.column18, beneficiary_account_number = v.column19, sender_name = v.column20,
		sender_iban = v.column21, sender_sort_code = v.column22, sender_account_number = v.column23
	FROM (VALUES ` + strings.Join(rows, ", ") + `) AS v
	WHERE payments.id = v.column1 AND payments.status = v.column2`
}

// moveWidth is how many values a payment's row of moveAll has: movePayment's
// parameters.
const moveWidth = 23

// moveTypes are the SQL types of moveAll's columns (PostgreSQL's casts).
var moveTypes = [moveWidth]string{"TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "BIGINT", "BIGINT", "INTEGER",
	"TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT", "TEXT"}

// MoveAll updates each payment of cs as Move does, moveRows payments an
// UPDATE (CONFLICT when one is no longer in its From status), then writes
// all their new history in INSERTs of eventRows. Two changes of one
// payment in cs (a chain: each From the status the one before moved it
// to) are one row: the first's From, the last's state.
func (r payments) MoveAll(ctx context.Context, cs []payment.Change) error {
	if r.tx == nil {
		return r.s.InTx(ctx, func(tx *Tx) error { return tx.Payments().MoveAll(ctx, cs) })
	}
	var events [][]any
	last := map[string]int{} // payment id: its row in moves
	var moves []payment.Change
	for _, c := range cs {
		p := c.Payment
		if i, ok := last[p.ID]; ok {
			if moves[i].Payment.Status != c.From {
				return errs.E(errs.Conflict, "The payment changed meanwhile; it is no longer %s.", c.From)
			}
			moves[i].Payment = p
		} else {
			last[p.ID] = len(moves)
			moves = append(moves, c)
		}
		for i := c.Stored; i < len(p.History); i++ {
			u := p.History[i]
			events = append(events, []any{ids.New(), p.CustomerID, event.SubjectPayment, p.ID, i + 1,
				event.PaymentStatusChanged, string(u.Status), micros(u.CreatedAt)})
		}
	}
	for lo := 0; lo < len(moves); lo += moveRows {
		part := moves[lo:min(lo+moveRows, len(moves))]
		args := make([]any, 0, moveWidth*len(part))
		for _, c := range part {
			p := c.Payment
			st, err := paymentState(p)
			if err != nil {
				return err
			}
			args = append(append(args, p.ID, string(c.From), string(p.Status), st.request, p.Scheme().InstitutionID, st.sender,
				st.nextStatus, st.nextAt, micros(p.UpdatedAt)), st.view...)
		}
		res, err := r.s.txExec(ctx, r.tx, moveAll(r.s.dialect, len(part)), args...)
		if err != nil {
			return translate(err, fmt.Sprintf("%d payments", len(part)))
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("%d payments: rows affected: %w", len(part), err)
		}
		if n != int64(len(part)) {
			// Some of the part moved and are not counted: the unit must
			// roll back (it does: the error is the unit's).
			return errs.E(errs.Conflict, "%d of %d payments changed meanwhile.", int64(len(part))-n, len(part))
		}
		for _, c := range part {
			r.s.countMoved(r.tx, c.Payment.CustomerID, c.Payment.Request.Currency, string(c.From), string(c.Payment.Status))
		}
	}
	return r.s.bulkInsert(ctx, r.tx, "events", eventColumns, events, eventRows, insertEvents,
		fmt.Sprintf("status history of %d payments", len(cs)))
}

// eventColumns are the columns of the events MoveAll writes.
var eventColumns = []string{"id", "customer_id", "subject_type", "subject_id", "seq", "type", "status", "occurred_at"}

// insertEvents is MoveAll's INSERT of n events on d.
func insertEvents(d Dialect, n int) string {
	return `INSERT INTO events (` + strings.Join(eventColumns, ", ") + `) VALUES ` + rowsOf(d, n, len(eventColumns))
}
