package store

import (
	"context"

	"github.com/bankrail/bankrail/internal/report"
)

// each customer's cursor fills a buffer of its share of 2*batch rows; the
// oldest head is written next.
func mergePayments(ctx context.Context, r batchReader, batch int, sc report.Scope, customers []string, fn func(report.PaymentRow) error) error {
	limit := max(2*batch/len(customers), min(batch, 100))
	type head struct {
		cur  paymentCursor
		buf  []report.PaymentRow
		next int
	}
	heads := make([]*head, 0, len(customers))
	fill := func(h *head) error {
		h.buf, h.next = h.buf[:0], 0
		return h.cur.next(ctx, limit, func(p report.PaymentRow) error {
			h.buf = append(h.buf, p)
			return nil
		})
	}
	for _, c := range customers {
		h := &head{cur: paymentCursor{r: r, sc: sc, customer: c}}
		if err := fill(h); err != nil {
			return err
		}
		if len(h.buf) > 0 {
			heads = append(heads, h)
		}
	}
	for len(heads) > 0 {
		select { // rows already read are not written once cancelled
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		// A linear scan for the oldest head: at most maxMergedCustomers.
		best := 0
		for i := 1; i < len(heads); i++ {
			a, b := &heads[i].buf[heads[i].next], &heads[best].buf[heads[best].next]
			if a.CreatedAt.Before(b.CreatedAt) || (a.CreatedAt.Equal(b.CreatedAt) && a.ID < b.ID) {
				best = i
			}
		}
		h := heads[best]
		if err := fn(h.buf[h.next]); err != nil {
			return err
		}
		h.next++
		if h.next < len(h.buf) {
			continue
		}
		if !h.cur.done {
			if err := fill(h); err != nil {
				return err
			}
		}
		if h.next >= len(h.buf) {
			heads = append(heads[:best], heads[best+1:]...)
		}
	}
	return nil
}
