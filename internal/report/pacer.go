package report

import (
	"context"
	"time"
)

// PaceRows is how many rows a generation writes between two looks at
// whether the instance is busy answering requests.
const PaceRows = 4096

// pacer lets a generation give way to the API: every PaceRows rows, when
// busy reports requests in flight, the generation pauses for as long as
// those rows took, so that while the API is busy a generation takes at
// most about half of the time it could (the database's side pauses with
// it: it waits for the rows to be read). An idle instance generates at
// full speed. The pause is real time (it shares the processor), not a
// business clock's.
type pacer struct {
	busy  func() bool                                // nil: never pause
	now   func() time.Time                           // the real time
	sleep func(context.Context, time.Duration) error // waits, or ends with ctx
	rows  int                                        // rows since the last look
	since time.Time                                  // when the rows since the last look began
}

// newPacer is the pacer of one generation; busy nil never pauses.
func newPacer(busy func() bool) *pacer {
	return &pacer{busy: busy, now: time.Now, sleep: sleepCtx} // basetime: pauses are real time
}

// row counts one written row and pauses when it is time to and the API is
// busy; it fails only when ctx ends during the pause.
func (p *pacer) row(ctx context.Context) error {
	if p.busy == nil {
		return nil
	}
	if p.rows == 0 && p.since.IsZero() {
		p.since = p.now()
	}
	if p.rows++; p.rows < PaceRows {
		return nil
	}
	took := p.now().Sub(p.since)
	p.rows = 0
	if p.busy() && took > 0 {
		if err := p.sleep(ctx, took); err != nil {
			return err
		}
	}
	p.since = p.now()
	return nil
}

// sleepCtx waits d, or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
