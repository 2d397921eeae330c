package report

import (
	"context"
	"time"
)

// PaceRows is how many rows a generation writes between two looks at
// whether the instance is busy answering requests.
const PaceRows = 4096

// DefaultDutyCycle is the share of the time (percent) a generation may
// work while the API is busy: it rests three times as long as it worked.
const DefaultDutyCycle = 25

// pacer lets a generation give way to the API: a duty cycle. Every
// PaceRows rows, when busy reports requests in flight, the generation
// rests in proportion to the time those rows took, (100-duty)/duty times
// as long, so that while the API is busy a generation works at most duty
// percent of the time (the database's side rests with it: its query waits
// for the rows to be read, and the next batch's query is not sent). An
// idle instance generates at full speed. The rest is real time (it shares
// the processor), not a business clock's.
type pacer struct {
	busy  func() bool                                // nil: never pause
	duty  int                                        // percent of the time spent working while busy, 1 to 100
	now   func() time.Time                           // the real time
	sleep func(context.Context, time.Duration) error // waits, or ends with ctx
	rows  int                                        // rows since the last look
	since time.Time                                  // when the rows since the last look began
}

// newPacer is the pacer of one generation working duty percent of the
// time while busy (outside 1 to 99: never rests); busy nil never pauses.
func newPacer(busy func() bool, duty int) *pacer {
	if duty < 1 || duty >= 100 {
		busy = nil
	}
	return &pacer{busy: busy, duty: duty, now: time.Now, sleep: sleepCtx} // basetime: pauses are real time
}

// rest is how long to rest after working took.
func (p *pacer) rest(took time.Duration) time.Duration {
	return took * time.Duration(100-p.duty) / time.Duration(p.duty)
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
		if err := p.sleep(ctx, p.rest(took)); err != nil {
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
