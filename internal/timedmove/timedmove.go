// Package timedmove is the one loop that applies the moves time makes due:
// a payment's abandonment or its delayed bank's answer, a mandate's expiry,
// an amendment's abandonment, a deposit's confirmation. Each domain
// package describes its moves as Sources (which subjects are due, how to
// apply one); Run applies them all. A move is due on the clock of its
// subject's tenant: a Source's Due is given the base time and selects
// against each row's tenant offset (internal/store), and its Apply checks
// the move is due on that tenant's clock. Several instances may run at
// once: an Apply saves its move only over the state it read, so each move
// happens once. It knows nothing of SQL or HTTP.
package timedmove

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
)

// Batch is how many subjects of one Source a round reads.
const Batch = 100

// Source is one kind of timed move.
type Source struct {
	Name string // what it moves, for errors: "payment", "mandate expiry"
	// Due lists up to limit ids of the subjects whose move is due at now,
	// the base time (the store adds each row's tenant's clock offset).
	Due func(ctx context.Context, now time.Time, limit int) ([]string, error)
	// Apply makes id's move when it is due on its tenant's clock. A move
	// another request or instance made first, or a subject gone, is not an
	// error.
	Apply func(ctx context.Context, id string) error
}

// Run applies every due move of sources, a batch of each per round, until
// no source has a full batch left. A source whose Due or Apply fails does
// not stop the others in the round; the round's errors end the run (the
// next tick tries again).
func Run(ctx context.Context, clk clock.Clock, sources ...Source) error {
	for {
		now := clock.Base(clk) // basetime: a due scan, each Source's SQL adds each row's tenant offset
		more := false
		var errList []error
		for _, src := range sources {
			ids, err := src.Due(ctx, now, Batch)
			if err != nil {
				errList = append(errList, fmt.Errorf("due %s moves: %w", src.Name, err))
				continue
			}
			for _, id := range ids {
				if err := src.Apply(ctx, id); err != nil {
					errList = append(errList, fmt.Errorf("%s %s: %w", src.Name, id, err))
				}
			}
			more = more || len(ids) >= Batch
		}
		if len(errList) > 0 || !more || ctx.Err() != nil {
			return errors.Join(errList...)
		}
	}
}

// Settle is the Apply of subjects of type T: get reads id's subject, settle
// makes its move when due. An error for which ignore reports true (a move
// another instance made first, a subject gone) is not an error; ignore may
// be nil.
func Settle[T any](get func(ctx context.Context, id string) (T, error), settle func(ctx context.Context, subject T) (T, error),
	ignore func(error) bool) func(ctx context.Context, id string) error {
	return func(ctx context.Context, id string) error {
		subject, err := get(ctx, id)
		if err == nil {
			_, err = settle(ctx, subject)
		}
		if err != nil && ignore != nil && ignore(err) {
			return nil
		}
		return err
	}
}
