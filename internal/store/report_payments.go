package store

import (
	"context"
	"strconv"

	"github.com/bankrail/bankrail/internal/report"
)

// The PAYMENTS report's reader. A customer's payments of the period are
// read in (created_at, id) order on the index payments_customer_created
// (customer_id, created_at DESC, id DESC), walked backwards: no sort of the
// period, the first row at once, only the columns the file needs, and no
// query or snapshot held for the whole report: each query reads a bounded
// range of keys. Rows are read below database/sql (withReader). On
// PostgreSQL one goroutine reads the keyset batches (the database's work is
// in its own process); on SQLite the engine's work is in this process, so
// the batches are read on a goroutine of their own, beside the formatting
// and compression of the rows read before (readAhead).

// reportBatch is how many rows one keyset query reads. It is a literal in
// the SQL, not a parameter: with a LIMIT it cannot see, PostgreSQL's
// generic plan may sort the whole period instead of walking the index.
const reportBatch = 10_000

// maxMergedCustomers bounds the customers whose payments are merged from
// one keyset reader each (a buffer of 2*reportBatch/k rows, at least 100,
// per customer); a hierarchy with more is read by one query that the
// database sorts.
const maxMergedCustomers = 64

// Payments streams the payments of the scope, oldest first (createdAt,
// then id); the payments of several customers (a PSP's report) are
// merged.
func (d reportData) Payments(ctx context.Context, sc report.Scope, fn func(report.PaymentRow) error) error {
	if sc.ByUpdated { // not a PAYMENTS parameter: the index is on created_at
		return d.paymentsSorted(ctx, sc, fn)
	}
	customers, err := d.scopeCustomers(ctx, sc)
	if err != nil {
		return err
	}
	switch {
	case len(customers) == 0:
		return nil
	case len(customers) > maxMergedCustomers:
		return d.paymentsSorted(ctx, sc, fn)
	}
	return d.withReader(ctx, func(r batchReader) error {
		if len(customers) > 1 {
			return mergePayments(ctx, r, d.batch, sc, customers, fn)
		}
		read := func(ctx context.Context, fn func(report.PaymentRow) error) error {
			c := paymentCursor{r: r, sc: sc, customer: customers[0]}
			for !c.done {
				if err := c.next(ctx, d.batch, fn); err != nil {
					return err
				}
			}
			return nil
		}
		if d.s.dialect == Postgres {
			return read(ctx, fn) // the database's work is in its own process
		}
		return readAhead(ctx, readAheadRows, read, fn)
	})
}

// scopeCustomers lists the customers of a scope: its root alone when
// exact, else the root and every customer below it.
func (d reportData) scopeCustomers(ctx context.Context, sc report.Scope) ([]string, error) {
	if sc.Exact {
		return []string{sc.Root}, nil
	}
	rows, err := d.s.reportPool(ctx).QueryContext(ctx, `SELECT descendant_id FROM customer_tree WHERE ancestor_id = $1 ORDER BY descendant_id`, sc.Root)
	if err != nil {
		return nil, translate(err, "customers of a report")
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, translate(err, "customers of a report")
		}
		out = append(out, id)
	}
	return out, translate(rows.Err(), "customers of a report")
}

// reportPaymentColumns are the columns of a PAYMENTS row (the customer is
// the reader's): the text columns, then the integers.
const reportPaymentColumns = `id, status, currency, payment_reference, internal_reference, payment_system, institution_id,
	created_at, updated_at, amount`

// paymentTexts and paymentInts are how many text and integer columns
// reportPaymentColumns has.
const (
	paymentTexts = 7
	paymentInts  = 3
)

// rowKey is a payment's place in the report's order.
type rowKey struct {
	at int64 // created_at
	id string
}

// paymentsAfter is the query of at most limit payments of customer in
// the period after after (exclusive; from the period's start when nil).
// The bound is a seek on created_at with the id checked beside it: SQLite
// does not start an index seek at a row value (created_at, id) > (?, ?)
// and would read the period from its start for every batch.
func paymentsAfter(customer string, sc report.Scope, after *rowKey, limit int) (string, []any) {
	where := `customer_id = $1 AND created_at >= $2 AND created_at <= $3`
	args := []any{customer, micros(sc.From), micros(sc.To)}
	if after != nil {
		args[1] = after.at
		args = append(args, after.id)
		where += ` AND (created_at > $2 OR id > $4)`
	}
	return `SELECT ` + reportPaymentColumns + ` FROM payments WHERE ` + where +
		` ORDER BY created_at, id LIMIT ` + strconv.Itoa(limit), args
}

// paymentCursor reads one customer's payments of a scope, batch after
// batch, from where the last batch ended.
type paymentCursor struct {
	r        batchReader
	sc       report.Scope
	customer string
	after    *rowKey
	done     bool
}

// next reads the next batch of at most limit payments and calls fn with
// each, in order; done is set after the last.
func (c *paymentCursor) next(ctx context.Context, limit int, fn func(report.PaymentRow) error) error {
	query, args := paymentsAfter(c.customer, c.sc, c.after, limit)
	n := 0
	var last rowKey
	err := c.r.rows(ctx, query, args, func(text []string, ints []int64) error {
		p := reportPaymentRow(c.customer, text, ints)
		last, n = rowKey{at: ints[0], id: p.ID}, n+1
		return fn(p)
	})
	if err != nil {
		return err
	}
	if n > 0 {
		c.after = &last
	}
	c.done = n < limit
	return nil
}

// reportPaymentRow is a row of reportPaymentColumns.
func reportPaymentRow(customer string, text []string, ints []int64) report.PaymentRow {
	return report.PaymentRow{CustomerID: customer, ID: text[0], Status: text[1], Currency: text[2], PaymentReference: text[3],
		InternalReference: text[4], PaymentSystem: text[5], InstitutionID: text[6],
		CreatedAt: fromMicros(ints[0]), UpdatedAt: fromMicros(ints[1]), Amount: ints[2]}
}

// paymentsSorted streams the payments of the scope in one query sorted by
// the database (a hierarchy of more than maxMergedCustomers customers).
func (d reportData) paymentsSorted(ctx context.Context, sc report.Scope, fn func(report.PaymentRow) error) error {
	where, args := scopeWhere(sc, dateColumn(sc))
	rows, err := d.s.reportPool(ctx).QueryContext(ctx, `
		SELECT customer_id, id, created_at, updated_at, status, amount, currency, payment_reference, internal_reference,
			payment_system, institution_id
		FROM payments WHERE `+where+` ORDER BY created_at, id`, args...)
	if err != nil {
		return translate(err, "payments of a report")
	}
	defer rows.Close()
	var p report.PaymentRow
	var created, updated int64
	for rows.Next() {
		if err := rows.Scan(&p.CustomerID, &p.ID, &created, &updated, &p.Status, &p.Amount, &p.Currency,
			&p.PaymentReference, &p.InternalReference, &p.PaymentSystem, &p.InstitutionID); err != nil {
			return translate(err, "payments of a report")
		}
		p.CreatedAt, p.UpdatedAt = fromMicros(created), fromMicros(updated)
		if err := fn(p); err != nil {
			return err
		}
	}
	return translate(rows.Err(), "payments of a report")
}
