package mandate

import (
	"context"
	"errors"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
)

// DueBatch is how many timed moves one round of RunTimedMoves reads.
const DueBatch = 100

// RunTimedMoves applies every timed move that is due: mandates whose
// validity.to has passed expire, amendments unanswered for AbandonAfter are
// abandoned. Several instances may run it at once: each move is saved only
// over the state it was read in, so it happens once. It is the background
// worker's task (beside the payments' timed moves).
func (s *Service) RunTimedMoves(ctx context.Context) error {
	for {
		now := clock.Base(s.clock) // basetime: a due scan, the store adds each tenant's offset
		mandates, err := s.mandates.DueToExpire(ctx, now, DueBatch)
		if err != nil {
			return err
		}
		amendments, err := s.amendments.DueToAbandon(ctx, now.Add(-AbandonAfter), DueBatch)
		if err != nil {
			return err
		}
		var errList []error
		for _, id := range amendments {
			if a, err := s.amendments.GetByID(ctx, id); err != nil {
				errList = append(errList, err)
			} else if _, err := s.settleAmendment(ctx, a); err != nil {
				errList = append(errList, err)
			}
		}
		for _, id := range mandates {
			if m, err := s.mandates.GetByID(ctx, id); err != nil {
				errList = append(errList, err)
			} else if _, err := s.settle(ctx, m); err != nil && !errs.Is(err, errs.Conflict) {
				errList = append(errList, err)
			}
		}
		if len(errList) > 0 || (len(mandates) < DueBatch && len(amendments) < DueBatch) || ctx.Err() != nil {
			return errors.Join(errList...)
		}
	}
}
