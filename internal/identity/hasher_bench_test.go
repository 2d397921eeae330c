package identity

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkConcurrentSignIns verifies 32 secrets at once (one op), as 32
// concurrent sign-ins would, with the old and the new cost parameters, each
// bounded to the cores (the Hasher) and unbounded (the reference: one slot
// per caller, as before the Hasher). It reports the peak live heap sampled
// during the run and the process's VmHWM (meaningful for the first
// sub-benchmark run alone: -bench 'ConcurrentSignIns/new/bounded').
func BenchmarkConcurrentSignIns(b *testing.B) {
	const callers = 32
	params := []struct {
		name string
		p    HashParams
	}{
		{"old-64MiB", HashParams{Time: 3, Memory: 64 * 1024, Threads: 2}},
		{"new-19MiB", DefaultHashParams},
	}
	for _, pp := range params {
		hash, err := HashSecret("correct horse battery", pp.p)
		if err != nil {
			b.Fatal(err)
		}
		for _, slots := range []int{runtime.GOMAXPROCS(0), callers} {
			name := fmt.Sprintf("%s/slots-%d", pp.name, slots)
			b.Run(name, func(b *testing.B) {
				h := NewHasher(pp.p, slots)
				stop := samplePeakHeap()
				b.ResetTimer()
				for range b.N {
					var wg sync.WaitGroup
					for range callers {
						wg.Go(func() {
							if ok, err := h.Verify(context.Background(), hash, "correct horse battery"); err != nil || !ok {
								b.Error("verify failed", err)
							}
						})
					}
					wg.Wait()
				}
				b.StopTimer()
				b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MB")
				b.ReportMetric(float64(vmHWM())/(1<<20), "VmHWM-MB")
			})
		}
	}
}

// samplePeakHeap samples the live heap every millisecond until the returned
// function is called, which returns the largest sample.
func samplePeakHeap() func() uint64 {
	var peak atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		return peak.Load()
	}
}

// vmHWM is the process's peak resident set size in bytes (Linux), or 0.
func vmHWM() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
