package worker_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/worker"
)

// TestBeatEndsWhenTheBeatSaysSoOrOnStop: a beat that answers false beats
// no more; stop returns only once no beat runs, and none runs after it.
func TestBeatEndsWhenTheBeatSaysSoOrOnStop(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	ended := make(chan struct{})
	stop := worker.Beat(time.Millisecond, func() bool {
		if n.Add(1) == 3 {
			close(ended)
			return false
		}
		return true
	})
	<-ended
	stop()
	if got := n.Load(); got != 3 {
		t.Errorf("%d beats, want 3 (the third said stop)", got)
	}

	var m atomic.Int64
	stop = worker.Beat(time.Millisecond, func() bool { m.Add(1); return true })
	for m.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	stop()
	after := m.Load()
	time.Sleep(10 * time.Millisecond)
	if m.Load() != after {
		t.Errorf("beats went on after stop: %d, then %d", after, m.Load())
	}
}
