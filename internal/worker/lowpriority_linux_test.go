package worker

import (
	"errors"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// TestLowPriorityRunsOnALowPriorityThread: fn runs on a thread at the
// nice asked (Linux), with one more GOMAXPROCS while it runs and as many
// as before after; its error is returned; the caller's thread keeps its
// priority.
func TestLowPriorityRunsOnALowPriorityThread(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	mine, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	var nice, procs int
	err = LowPriority(19, func() error {
		// Getpriority's Linux syscall answers 20 - nice.
		p, err := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid())
		if err != nil {
			return err
		}
		nice, procs = 20-p, runtime.GOMAXPROCS(0)
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("LowPriority returned %v, want fn's error", err)
	}
	if nice != 19 || procs != before+1 {
		t.Errorf("fn ran at nice %d with GOMAXPROCS %d; want 19 and %d", nice, procs, before+1)
	}
	if after := runtime.GOMAXPROCS(0); after != before {
		t.Errorf("GOMAXPROCS %d after, want %d", after, before)
	}
	if now, _ := unix.Getpriority(unix.PRIO_PROCESS, 0); now != mine {
		t.Errorf("the process's priority changed: %d, was %d", now, mine)
	}
	ran := false
	if err := LowPriority(0, func() error { ran = true; return nil }); err != nil || !ran {
		t.Errorf("nice 0: ran %v, %v; want fn run as it is", ran, err)
	}
}
