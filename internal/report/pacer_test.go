package report

import (
	"context"
	"errors"
	"testing"
	"time"
)

// fakePacer is a pacer on a hand-moved time that records its pauses.
type fakePacer struct {
	*pacer
	at     time.Time
	pauses []time.Duration
}

func newFakePacer(busy func() bool, duty int) *fakePacer {
	f := &fakePacer{at: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	f.pacer = newPacer(busy, duty)
	f.now = func() time.Time { return f.at }
	f.sleep =
		func(_ context.Context, d time.Duration) error {
			f.pauses = append(f.pauses, d)
			f.at = f.at.Add(d)
			return nil
		}
	return f
}

// write writes n rows of perRow each.
func (f *fakePacer) write(t *testing.T, n int, perRow time.Duration) {
	t.Helper()
	for range n {
		f.at = f.at.Add(perRow)
		if err := f.row(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// While the API is busy a generation at a duty cycle of 50 % pauses after
// every PaceRows rows for as long as they took: half of its time; idle, or
// without a busy signal, it never pauses.
func TestPacerGivesWayWhileBusy(t *testing.T) {
	t.Parallel()
	busy := true
	f := newFakePacer(func() bool { return busy }, 50)
	f.write(t, 3*PaceRows+10, time.Microsecond)
	want := time.Duration(PaceRows) * time.Microsecond
	if len(f.pauses) != 3 {
		t.Fatalf("%d pauses after 3 batches, want 3: %v", len(f.pauses), f.pauses)
	}
	for i, d := range f.pauses {
		// The first batch starts at its first row: one row's time less.
		if d != want && !(i == 0 && d == want-time.Microsecond) {
			t.Errorf("pause %d: %v, want %v (the batch's own time)", i, d, want)
		}
	}
	busy = false
	f.write(t, 2*PaceRows, time.Microsecond)
	if len(f.pauses) != 3 {
		t.Errorf("paused while idle: %v", f.pauses)
	}
	// The pause itself is not counted as the next batch's time: 10 rows of
	// a microsecond were left from before, then rows of two.
	busy = true
	f.write(t, PaceRows, 2*time.Microsecond)
	if got, w := f.pauses[len(f.pauses)-1], 10*time.Microsecond+(PaceRows-10)*2*time.Microsecond; len(f.pauses) != 4 || got != w {
		t.Errorf("pauses %d, the last after a slower batch %v, want 4 and %v", len(f.pauses), got, w)
	}

	none := newFakePacer(nil, 50)
	none.write(t, 3*PaceRows, time.Microsecond)
	if len(none.pauses) != 0 {
		t.Errorf("paused without a busy signal: %v", none.pauses)
	}
}

// The rest after a batch is (100-duty)/duty times the batch's time, so
// that a generation works duty percent of the time while the API is busy;
// 100 (and anything outside 1 to 99) never rests.
func TestPacerDutyCycle(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		duty int
		rest time.Duration // after a batch of PaceRows rows of a microsecond each
	}{
		{DefaultDutyCycle, 3 * PaceRows * time.Microsecond},
		{10, 9 * PaceRows * time.Microsecond},
		{75, PaceRows * time.Microsecond / 3},
		{99, PaceRows * time.Microsecond / 99},
		{100, 0},
		{0, 0},
	} {
		f := newFakePacer(func() bool { return true }, tt.duty)
		f.since = f.at // the batch starts before its first row
		f.write(t, PaceRows, time.Microsecond)
		switch {
		case tt.rest == 0 && len(f.pauses) != 0:
			t.Errorf("duty %d: rested %v, want never", tt.duty, f.pauses)
		case tt.rest != 0 && (len(f.pauses) != 1 || f.pauses[0] != tt.rest):
			t.Errorf("duty %d: rests %v, want one of %v", tt.duty, f.pauses, tt.rest)
		}
	}
}

// A generation whose context ends during a pause stops with its cause.
func TestPacerStopsWithItsContext(t *testing.T) {
	t.Parallel()
	p := newPacer(func() bool { return true }, DefaultDutyCycle)
	start := time.Now()
	p.now = func() time.Time { return start.Add(time.Hour) } // every batch "took" an hour
	p.since = start
	p.rows = PaceRows - 1
	cause := errors.New("lease lost")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	if err := p.row(ctx); !errors.Is(err, cause) {
		t.Fatalf("row in a cancelled pause: %v, want %v", err, cause)
	}
}
