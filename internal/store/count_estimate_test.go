package store

import (
	"context"
	"database/sql"
	"math"

	"github.com/bankrail/bankrail/internal/payment"
)

// The estimate that GET /payments answered past 1,000 matches before
// issue 28 item 6, kept here so that BenchmarkListTotal measures the exact
// count against it in the same run.

// estimateBound is the old exact bound.
const estimateBound = 1000

// EstimatePaymentsTotal is the old total of GET /payments without filters
// for viewer: exact up to 1,000, extrapolated past it.
func (s *Store) EstimatePaymentsTotal(ctx context.Context, viewer string) (int, error) {
	r := payments{s: s, q: s.read}
	var n int
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		n, err = r.estimateList(ctx, tx, viewer)
		return err
	})
	return n, err
}

// ExactPaymentsTotal is the total GET /payments answers without filters
// for viewer (countList alone: the sum of payment_counts).
func (s *Store) ExactPaymentsTotal(ctx context.Context, viewer string) (int, error) {
	r := payments{s: s, q: s.read}
	var n int
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		n, err = r.countList(ctx, tx, viewer, payment.ListFilter{})
		return err
	})
	return n, err
}

// IndexCountPaymentsTotal counts the payments of viewer's customers one
// index range each (countPerCustomer, the exact count of a filtered list),
// as the exact total would cost without payment_counts.
func (s *Store) IndexCountPaymentsTotal(ctx context.Context, viewer string) (int, error) {
	var n int
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, countPerCustomer("payments", nil, nil), viewer).Scan(&n)
	})
	return n, err
}

// estimateList is the old countList without filters: the newest 1,001
// matches read like a page; past them, their density extrapolated back to
// the oldest payment of the viewer's customers.
func (r payments) estimateList(ctx context.Context, q querier, viewer string) (int, error) {
	w, keys := r.listKeys(viewer, payment.ListFilter{}, false)
	bound := w.placeholder(estimateBound + 1)
	keys.perCustomer, keys.limit = bound, bound
	var n int
	var sampleOldest, newest sql.NullInt64
	err := q.QueryRowContext(ctx, `SELECT COUNT(*), MIN(s.created_at), MAX(s.created_at) FROM (`+keys.sql()+`) s`, w.args...).
		Scan(&n, &sampleOldest, &newest)
	if err != nil || n <= estimateBound {
		return n, err
	}
	var oldest sql.NullInt64
	err = q.QueryRowContext(ctx, `SELECT MIN((SELECT q.created_at FROM payments q WHERE q.customer_id = t.descendant_id
		ORDER BY q.created_at, q.id LIMIT 1)) FROM customer_tree t WHERE t.ancestor_id = $1`, viewer).Scan(&oldest)
	if err != nil || newest.Int64 <= sampleOldest.Int64 || oldest.Int64 >= sampleOldest.Int64 {
		return n, err
	}
	return max(n, int(math.Round(float64(n)*float64(newest.Int64-oldest.Int64)/float64(newest.Int64-sampleOldest.Int64)))), nil
}
