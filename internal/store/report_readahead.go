package store

import (
	"context"

	"github.com/bankrail/bankrail/internal/report"
)

// readAheadRows is how many rows the reading goroutine hands over at once.
const readAheadRows = 256

// readAhead runs read on a goroutine of its own and calls fn with its
// rows on the caller's, handed over readAheadRows at a time (at most three
// such slices exist): on SQLite the engine's work (in this process) runs
// beside the formatting and compression of the rows read before. An error
// of fn stops read; read's error is returned.
func readAhead(ctx context.Context, n int, read func(context.Context, func(report.PaymentRow) error) error, fn func(report.PaymentRow) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan []report.PaymentRow, 2)
	free := make(chan []report.PaymentRow, 3)
	for range 3 {
		free <- make([]report.PaymentRow, 0, n)
	}
	done := make(chan error, 1)
	go func() {
		defer close(batches)
		buf := <-free
		hand := func() error {
			select {
			case batches <- buf:
			case <-ctx.Done():
				return ctx.Err()
			}
			buf = <-free // three slices: the reader never waits here for long
			return nil
		}
		err := read(ctx, func(p report.PaymentRow) error {
			if buf = append(buf, p); len(buf) == n {
				return hand()
			}
			return nil
		})
		if len(buf) > 0 && ctx.Err() == nil {
			if herr := hand(); err == nil {
				err = herr
			}
		}
		done <- err
	}()
	var failed error
	stopped := ctx.Done()
	for b := range batches {
		for i := 0; i < len(b) && failed == nil; i++ {
			select { // rows already read are not handed over once cancelled
			case <-stopped:
				failed = ctx.Err()
				continue
			default:
			}
			if failed = fn(b[i]); failed != nil {
				cancel() // the reader stops; the batches it still hands over are dropped
			}
		}
		free <- b[:0]
	}
	if err := <-done; failed == nil {
		return err
	}
	return failed
}
