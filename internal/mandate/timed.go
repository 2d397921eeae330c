package mandate

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/timedmove"
)

// TimedMoves are the mandates' timed moves, due on each tenant's clock,
// for timedmove.Run: amendments unanswered for AbandonAfter are
// abandoned, mandates whose validity.to has passed expire. Each move is
// saved only over the state it was read in, so it happens once; a
// mandate another instance settled first is not an error.
func (s *Service) TimedMoves() []timedmove.Source {
	return []timedmove.Source{{
		Name: "amendment abandonment",
		Due: func(ctx context.Context, now time.Time, limit int) ([]string, error) {
			return s.amendments.DueToAbandon(ctx, now.Add(-AbandonAfter), limit)
		},
		Apply: timedmove.Settle(s.amendments.GetByID, s.settleAmendment, nil),
	}, {
		Name:  "mandate expiry",
		Due:   s.mandates.DueToExpire,
		Apply: timedmove.Settle(s.mandates.GetByID, s.settle, settledMeanwhile),
	}}
}

// settledMeanwhile reports a move another request or instance made first.
func settledMeanwhile(err error) bool { return errs.Is(err, errs.Conflict) }

// RunTimedMoves applies every mandate's and amendment's timed move that is
// due (tests and tools; the background worker runs TimedMoves with the
// other packages').
func (s *Service) RunTimedMoves(ctx context.Context) error {
	return timedmove.Run(ctx, s.clock, s.TimedMoves()...)
}
