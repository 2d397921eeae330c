package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/bankrail/bankrail/internal/payment"
)

// MatchExpected returns the oldest payment expected on accountID that
// incoming funds of amount and currency with reference pay: reference is
// the payment's unique_reference (an index of the account's expected
// payments, migration 00037) or its id (the primary key), so the match
// reads the few payments with that reference, not every payment of the
// account.
func (r payments) MatchExpected(ctx context.Context, accountID, reference string, amount int64, currency string,
	statuses []payment.Status) (payment.Payment, error) {
	args := []any{accountID, currency, amount, reference}
	for _, st := range statuses {
		args = append(args, string(st))
	}
	p, err := scanPayment(r.s.queryRow(ctx, r.q, r.tx, matchExpected(len(statuses)), args...))
	return p, translate(err, "expected payment "+reference)
}

// matchExpected is MatchExpected's query for n statuses: two index lookups
// (the reference on the account, the id), whatever the planner's
// statistics, then the one payment read whole.
func matchExpected(n int) string {
	marks := make([]string, n)
	for i := range marks {
		marks[i] = fmt.Sprintf("$%d", 5+i)
	}
	in := strings.Join(marks, ", ")
	return `SELECT ` + paymentColumns + ` FROM payments p WHERE p.id = (
		SELECT m.id FROM (
			SELECT x.id, x.created_at FROM payments x WHERE x.connect_account_id = $1 AND x.connect_account_id <> ''
				AND x.unique_reference = $4 AND x.currency = $2 AND x.amount = $3 AND x.status IN (` + in + `)
			UNION ALL
			SELECT y.id, y.created_at FROM payments y WHERE y.id = $4
				AND y.connect_account_id = $1 AND y.currency = $2 AND y.amount = $3 AND y.status IN (` + in + `)
		) m ORDER BY m.created_at, m.id LIMIT 1)`
}

// payinStatuses is how many statuses payment.Payin matches (its query is
// prepared once: stmt.go's hotWrites, which prepares on the write pool).
const payinStatuses = 5

func init() { hotWrites = append(hotWrites, matchExpected(payinStatuses)) }

// queryRow runs a read inside tx through its prepared statement when one
// was made (as txExec does for writes), or on q.
func (s *Store) queryRow(ctx context.Context, q querier, tx *sql.Tx, query string, args ...any) *sql.Row {
	if tx != nil {
		s.stmts.mu.Lock()
		st, ok := s.stmts.stmts[stmtKey{s.write, query}]
		s.stmts.mu.Unlock()
		if ok {
			return tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
		}
	}
	return q.QueryRowContext(ctx, query, args...)
}
