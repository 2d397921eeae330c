package store

// The lists of payments: one page read from the index in order, and its
// total (docs/decisions.md, "Lists read the newest rows from the index in
// order" and "total-items is exact").

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/bankrail/bankrail/internal/paging"
	"github.com/bankrail/bankrail/internal/payment"
)

// List is ListPage without the refund amounts and the position after the
// page.
func (r payments) List(ctx context.Context, viewerCustomerID string, f payment.ListFilter) ([]payment.Payment, int, error) {
	page, err := r.ListPage(ctx, viewerCustomerID, f)
	if err != nil {
		return nil, 0, err
	}
	out := make([]payment.Payment, len(page.Items))
	for i, it := range page.Items {
		out[i] = it.Payment
	}
	return out, page.Total, nil
}

// ListPage returns one page of the payments visible to viewerCustomerID,
// newest first with the id as tie-breaker, each with its refunded total and
// its Connect account's available balance, and the exact number of
// matches. Everything comes from one snapshot. The page's
// keys are read from the (customer_id, created_at DESC, id DESC) index in
// order (newestFirst), then its rows by primary key.
func (r payments) ListPage(ctx context.Context, viewerCustomerID string, f payment.ListFilter) (payment.Page, error) {
	var page payment.Page
	list := func(q querier) error {
		page = payment.Page{} // afresh: a read the replica failed is read again on the primary
		var err error
		if page.Total, err = r.countList(ctx, q, viewerCustomerID, f); err != nil {
			return err
		}
		offset := 0
		if f.After == nil {
			offset = paging.Offset(f.Page, f.Limit)
			if page.Total <= offset {
				return nil
			}
		}
		w, keys := r.listKeys(viewerCustomerID, f, true)
		keys.perCustomer = w.placeholder(offset + f.Limit + 1) // one more: is there a next page?
		keys.limit, keys.offset = w.placeholder(f.Limit+1), w.placeholder(offset)
		rows, err := q.QueryContext(ctx, `SELECT `+viewColumns+`, `+refundAmounts+`
			FROM (`+keys.sql()+`) s JOIN payments p ON p.id = s.id
			ORDER BY p.created_at DESC, p.id DESC`, w.args...)
		if err != nil {
			return translate(err, "list payments")
		}
		defer rows.Close()
		page.Items = make([]payment.ListItem, 0, f.Limit+1)
		for rows.Next() {
			var it payment.ListItem
			if it.Payment, err = scanPaymentView(rows, &it.Refunded, &it.Available); err != nil {
				return translate(err, "list payments")
			}
			page.Items = append(page.Items, it)
		}
		if err := rows.Err(); err != nil {
			return translate(err, "list payments")
		}
		if len(page.Items) > f.Limit {
			page.Items = page.Items[:f.Limit]
			last := page.Items[f.Limit-1]
			page.Next = &payment.Position{CreatedAt: last.CreatedAt, ID: last.ID}
		}
		return nil
	}
	if r.tx != nil {
		return page, list(r.tx)
	}
	err := r.s.listTx(ctx, func(tx *sql.Tx) error { return list(tx) })
	return page, err
}

// listKeys builds the conditions of a list of the viewer's payments
// filtered by f (the position f.After too when keyset is set) into the
// keys of newestFirst; the viewer is $1 of w.
func (r payments) listKeys(viewer string, f payment.ListFilter, keyset bool) (*where, newestFirst) {
	w := &where{args: []any{viewer}}
	n := newestFirst{dialect: r.s.dialect, table: "payments", orderIndex: "payments_customer_created"}
	if f.CustomerID != "" {
		n.treeConds = append(n.treeConds, "t.descendant_id = "+w.placeholder(f.CustomerID))
	}
	cond := func(format string, v any) { n.rowConds = append(n.rowConds, fmt.Sprintf(format, w.placeholder(v))) }
	if f.Status != "" {
		cond("q.status = %s", string(f.Status))
	}
	if f.Currency != "" {
		cond("q.currency = %s", f.Currency)
	}
	if f.InternalReference != "" {
		cond("q.internal_reference = %s", f.InternalReference)
		n.orderIndex = "" // its own index finds the few matches, which are then sorted
	}
	if f.PaymentReference != "" {
		cond("q.payment_reference = %s", f.PaymentReference)
		n.orderIndex = ""
	}
	if f.CreatedFrom != nil {
		cond("q.created_at >= %s", micros(*f.CreatedFrom))
	}
	if f.CreatedTo != nil {
		cond("q.created_at <= %s", micros(*f.CreatedTo))
	}
	if keyset && f.After != nil {
		at, id := w.placeholder(micros(f.After.CreatedAt)), w.placeholder(f.After.ID)
		n.rowConds = append(n.rowConds, fmt.Sprintf("q.created_at <= %s AND (q.created_at < %s OR q.id < %s)", at, at, id))
	}
	return w, n
}

// countList counts the matches of f exactly: without a condition on the
// payments but status and currency (customerId at most), the sum of the
// visible customers' counts of that status and currency (payment_counts,
// kept by the store: one row per customer, status, currency and shard);
// otherwise one COUNT per customer over its index range
// (countPerCustomer), whose cost grows with the matches.
func (r payments) countList(ctx context.Context, q querier, viewer string, f payment.ListFilter) (int, error) {
	var query string
	var args []any
	if counted(f) {
		w := &where{args: []any{viewer}}
		conds := []string{"t.ancestor_id = $1"}
		if f.CustomerID != "" {
			conds = append(conds, "t.descendant_id = "+w.placeholder(f.CustomerID))
		}
		if f.Status != "" {
			conds = append(conds, "c.status = "+w.placeholder(string(f.Status)))
		}
		if f.Currency != "" {
			conds = append(conds, "c.currency = "+w.placeholder(f.Currency))
		}
		query = `SELECT COALESCE(SUM(c.n), 0) FROM customer_tree t JOIN ` + paymentCountsTable + ` c ON c.customer_id = t.descendant_id
			WHERE ` + strings.Join(conds, " AND ")
		args = w.args
	} else {
		w, keys := r.listKeys(viewer, f, false)
		query, args = countPerCustomer("payments", keys.rowConds, keys.treeConds), w.args
	}
	var n int
	if err := q.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		return 0, translate(err, "count payments")
	}
	return n, nil
}

// counted tells whether payment_counts answers the total of f: no filter
// but customerId, status and currency (the position of a keyset page does
// not narrow the total).
func counted(f payment.ListFilter) bool {
	f.CustomerID, f.Status, f.Currency, f.Page, f.Limit, f.After = "", "", "", 0, 0, nil
	return f == payment.ListFilter{}
}
