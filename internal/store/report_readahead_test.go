package store

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/bankrail/bankrail/internal/report"
)

// readAhead hands every row over once and in order; an error of the
// consumer stops the reader (its context is cancelled) and is returned; an
// error of the reader is returned after the rows read before it.
func TestReadAhead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	produce := func(n int, fail error) func(context.Context, func(report.PaymentRow) error) error {
		return func(ctx context.Context, fn func(report.PaymentRow) error) error {
			for i := range n {
				if err := ctx.Err(); err != nil {
					return err
				}
				if err := fn(report.PaymentRow{ID: strconv.Itoa(i)}); err != nil {
					return err
				}
			}
			return fail
		}
	}
	for _, n := range []int{0, 1, 7, 8, 9, 1000} {
		var got []string
		err := readAhead(ctx, 8, produce(n, nil), func(p report.PaymentRow) error {
			got = append(got, p.ID)
			return nil
		})
		if err != nil || len(got) != n {
			t.Fatalf("%d rows: got %d, %v", n, len(got), err)
		}
		for i, id := range got {
			if id != strconv.Itoa(i) {
				t.Fatalf("row %d is %s", i, id)
			}
		}
	}
	stop := errors.New("the file cannot be written")
	seen := 0
	if err := readAhead(ctx, 8, produce(100_000, nil), func(report.PaymentRow) error {
		if seen++; seen == 300 {
			return stop
		}
		return nil
	}); !errors.Is(err, stop) || seen != 300 {
		t.Fatalf("consumer failure: %v after %d rows", err, seen)
	}
	broken := errors.New("the database went away")
	seen = 0
	if err := readAhead(ctx, 8, produce(21, broken), func(report.PaymentRow) error { seen++; return nil }); !errors.Is(err, broken) || seen != 21 {
		t.Fatalf("reader failure: %v after %d rows", err, seen)
	}
}
