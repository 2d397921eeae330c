package client_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/client"
)

// allPaymentsByCursor checks keyset paging through the SDK over a list of
// two payments read one a page (page is page 1): the page after page 1's
// next-cursor is the last, with the other payment, and AllPayments reads
// both in two pages, the second by that cursor.
func allPaymentsByCursor(ctx context.Context, t *testing.T, c *client.Client, rec *recorder, page *client.Page[api.PaymentDetails], want []string) {
	t.Helper()
	one := client.Ptr[int64](1)
	next := must(c.ListPayments(ctx, &api.ListPaymentsParams{Limit: one, Cursor: &page.NextCursor}))
	if page.NextCursor == "" || len(next.Items) != 1 || next.Items[0].ID == page.Items[0].ID || next.Page != 2 ||
		next.NextCursor != "" || !next.Last() {
		t.Errorf("the page after next-cursor %q: %+v", page.NextCursor, next)
	}
	before := rec.count("listPayments")
	var ids []string
	for p, err := range c.AllPayments(ctx, &api.ListPaymentsParams{Limit: one}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	pages, last := rec.count("listPayments")-before, rec.lastQuery("listPayments")
	if slices.Sort(ids); !slices.Equal(ids, want) || pages != 2 || !strings.Contains(last, "cursor="+page.NextCursor) {
		t.Errorf("all payments: %v in %d pages, the last by %q; want %v in 2, the second by cursor", ids, pages, last, want)
	}
}
