package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/bankrail/bankrail/internal/payment"
)

// MatchExpected returns the oldest payment expected on accountID that
// incoming funds of amount and currency with reference pay.
func (r payments) MatchExpected(ctx context.Context, accountID, reference string, amount int64, currency string,
	statuses []payment.Status) (payment.Payment, error) {
	args := []any{accountID, currency, amount, reference}
	marks := make([]string, len(statuses))
	for i, st := range statuses {
		args = append(args, string(st))
		marks[i] = fmt.Sprintf("$%d", len(args))
	}
	p, err := scanPayment(r.q.QueryRowContext(ctx, `SELECT `+paymentColumns+` FROM payments p
		WHERE p.connect_account_id = $1 AND p.currency = $2 AND p.amount = $3
		AND (p.unique_reference = $4 OR p.id = $4) AND p.status IN (`+strings.Join(marks, ", ")+`)
		ORDER BY p.created_at, p.id LIMIT 1`, args...))
	return p, translate(err, "expected payment "+reference)
}
