package worker

import (
	"runtime"
	"sync"
)

// LowPriority runs fn on an operating-system thread of its own whose CPU
// priority is lowered to nice (1 to 19; 19 is the lowest), and returns
// its error: background work that formats and compresses (a report's
// generation) then takes the processors only when the API's threads leave
// them. The thread ends with fn (it is never given back to the runtime's
// other goroutines, which must keep their priority). A locked thread
// still holds one of the runtime's GOMAXPROCS slots while the operating
// system keeps it waiting, so GOMAXPROCS is raised by one while fn runs:
// the API's goroutines keep the processors they had. nice 0, or a system
// that cannot lower a thread's priority (not Linux), runs fn as it is.
func LowPriority(nice int, fn func() error) error {
	if nice <= 0 || !threadPriority {
		return fn()
	}
	extraProc(1)
	defer extraProc(-1)
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with this goroutine
		_ = lowerThread(nice)  // refused (a sandbox without the right): the work is done all the same, at the usual priority
		errc <- fn()
	}()
	return <-errc
}

// procs counts the low-priority threads running, for extraProc.
var procs struct {
	sync.Mutex
	n    int
	base int
}

// extraProc adds d to the low-priority threads running and sets
// GOMAXPROCS to what it was before the first plus their number.
func extraProc(d int) {
	procs.Lock()
	defer procs.Unlock()
	if procs.n == 0 {
		procs.base = runtime.GOMAXPROCS(0)
	}
	procs.n += d
	runtime.GOMAXPROCS(procs.base + procs.n)
}
