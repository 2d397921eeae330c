package timedmove

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
)

// fakeSource has n subjects due; Due hands them out a batch at a time and
// Apply makes them not due, failing for the ids in fail.
type fakeSource struct {
	due     []string
	applied []string
	rounds  int
	failDue bool
	fail    map[string]bool
}

func newFake(prefix string, n int) *fakeSource {
	f := &fakeSource{fail: map[string]bool{}}
	for i := range n {
		f.due = append(f.due, fmt.Sprintf("%s%d", prefix, i))
	}
	return f
}

func (f *fakeSource) source(name string, at time.Time, t *testing.T) Source {
	return Source{Name: name,
		Due: func(_ context.Context, now time.Time, limit int) ([]string, error) {
			f.rounds++
			if !now.Equal(at) {
				t.Errorf("%s: due at %s, want the base time %s", name, now, at)
			}
			if f.failDue {
				return nil, errors.New("database down")
			}
			return append([]string(nil), f.due[:min(limit, len(f.due))]...), nil
		},
		Apply: func(_ context.Context, id string) error {
			f.applied = append(f.applied, id)
			for i, d := range f.due {
				if d == id && !f.fail[id] {
					f.due = append(f.due[:i], f.due[i+1:]...)
					break
				}
			}
			if f.fail[id] {
				return errors.New("refused")
			}
			return nil
		}}
}

// Run reads each source a batch at a time until none has a full batch
// left; one source's failure does not keep the others' moves from being
// made in the round, and ends the run with every error, named.
func TestRun(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)
	clk := clock.NewFake(at)
	base := at.Truncate(time.Microsecond)
	ctx := context.Background()

	many, few, none := newFake("m", 2*Batch+1), newFake("f", 3), newFake("n", 0)
	if err := Run(ctx, clk, many.source("many", base, t), few.source("few", base, t), none.source("none", base, t)); err != nil {
		t.Fatal(err)
	}
	if len(many.due) != 0 || len(many.applied) != 2*Batch+1 || many.rounds != 3 {
		t.Fatalf("many: %d left, %d applied in %d rounds; want all in 3", len(many.due), len(many.applied), many.rounds)
	}
	if len(few.applied) != 3 || few.rounds != 3 || none.rounds != 3 {
		t.Fatalf("few: %d applied, %d rounds; none: %d rounds", len(few.applied), few.rounds, none.rounds)
	}

	broken, refusing, fine := newFake("b", 1), newFake("r", Batch), newFake("ok", 2)
	broken.failDue, refusing.fail["r7"] = true, true
	err := Run(ctx, clk, broken.source("broken", base, t), refusing.source("refusing", base, t), fine.source("fine", base, t))
	if err == nil || !strings.Contains(err.Error(), "due broken moves: database down") || !strings.Contains(err.Error(), "refusing r7: refused") {
		t.Fatalf("errors: %v", err)
	}
	if len(fine.due) != 0 || len(refusing.due) != 1 || fine.rounds != 1 {
		t.Fatalf("after failures: fine has %d left (%d rounds), refusing %d; want the round done, then the run ended",
			len(fine.due), fine.rounds, len(refusing.due))
	}
}

// Settle reads the subject, applies its move, and drops only the errors
// ignore names, from either step.
func TestSettle(t *testing.T) {
	t.Parallel()
	gone, refused := errors.New("gone"), errors.New("refused")
	get := func(_ context.Context, id string) (string, error) {
		if id == "missing" {
			return "", gone
		}
		return id, nil
	}
	settle := func(_ context.Context, subject string) (string, error) {
		if subject == "moved" {
			return "", gone
		}
		if subject == "bad" {
			return "", refused
		}
		return subject, nil
	}
	isGone := func(err error) bool { return errors.Is(err, gone) }
	for _, tt := range []struct {
		id     string
		ignore func(error) bool
		want   error
	}{
		{"ok", isGone, nil}, {"missing", isGone, nil}, {"moved", isGone, nil}, {"bad", isGone, refused},
		{"missing", nil, gone}, {"moved", nil, gone},
	} {
		if err := Settle(get, settle, tt.ignore)(context.Background(), tt.id); !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
			t.Errorf("%s (ignore %v): %v, want %v", tt.id, tt.ignore != nil, err, tt.want)
		}
	}
}
