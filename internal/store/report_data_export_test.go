package store

import (
	"context"

	"github.com/bankrail/bankrail/internal/report"
)

// ReportDataBatch is ReportData reading batch rows per keyset query.
func (s *Store) ReportDataBatch(batch int) report.Data {
	return reportData{s: s, batch: batch}
}

// SortedPayments streams a scope's payments by the one query the database
// sorts (what Payments does for a large hierarchy).
func (s *Store) SortedPayments(ctx context.Context, sc report.Scope, fn func(report.PaymentRow) error) error {
	return reportData{s: s, batch: reportBatch}.paymentsSorted(ctx, sc, fn)
}
