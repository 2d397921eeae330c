package main

// What the soak phase keeps while it runs, in memory that does not grow
// with its length (so that this process's RSS is the server's story): a
// latency histogram, and RSS samples with the slope fitted to them.

import (
	"fmt"
	"math"
	"os"
	"sync"
	"time"
)

// latHist is a latency histogram of buckets 1 % wide from 10 µs: a
// percentile is exact to 1 %, in a fixed few kilobytes.
type latHist struct {
	mu     sync.Mutex
	counts [histBuckets]int64
	n      int64
}

const (
	histBuckets = 2048 // 10 µs × 1.01^2047 ≈ 7 days
	histFirst   = 10 * time.Microsecond
)

var histLogBase = math.Log(1.01)

func (h *latHist) add(d time.Duration) {
	i := 0
	if d > histFirst {
		i = min(int(math.Log(float64(d)/float64(histFirst))/histLogBase)+1, histBuckets-1)
	}
	h.mu.Lock()
	h.counts[i]++
	h.n++
	h.mu.Unlock()
}

// quantile is the upper bound of the bucket holding the q-th latency.
func (h *latHist) quantile(q float64) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(h.n)))
	var seen int64
	for i, c := range h.counts {
		if seen += c; seen >= max(rank, 1) {
			return time.Duration(float64(histFirst) * math.Pow(1.01, float64(i))).Round(time.Microsecond)
		}
	}
	return 0
}

// rssSample is the resident memory of this process at a moment of the soak.
type rssSample struct {
	at  time.Duration // since the soak's start
	rss int64         // kB
}

// sampleRSS appends this process's VmRSS every interval until stop is
// closed; the returned function waits for the sampler and gives the
// samples.
func sampleRSS(interval time.Duration, stop <-chan struct{}) func() []rssSample {
	var out []rssSample
	done := make(chan struct{})
	start := time.Now()
	take := func() {
		if kb, err := procStatus(os.Getpid(), "VmRSS"); err == nil {
			out = append(out, rssSample{at: time.Since(start), rss: kb})
		}
	}
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		take()
		for {
			select {
			case <-stop:
				take()
				return
			case <-t.C:
				take()
			}
		}
	}()
	return func() []rssSample { <-done; return out }
}

// rssTrend is how the RSS moved after the warm-up: the least-squares slope
// of the samples taken from warm on, in MB per minute, and the growth it
// predicts over that stretch.
type rssTrend struct {
	from, to      time.Duration
	first, last   float64 // MB, the first and last sample of the stretch
	peak          float64 // MB, over the whole soak
	slopePerMin   float64 // MB per minute
	growth        float64 // MB: slope × the stretch's length
	bound         float64 // MB: the most growth still called flat
	flat, enough  bool    // enough: at least 3 samples after the warm-up
	samples, used int
}

// flatBoundMB and flatBoundShare bound the growth still called flat: the
// fitted slope over the stretch after the warm-up, times its length, under
// the larger of 4 MB and 5 % of the RSS when the stretch began (a heap's
// growth target and the page caches move by a few MB without a leak; a
// leak of a kilobyte per request would grow by tens of MB in minutes).
const (
	flatBoundMB    = 4.0
	flatBoundShare = 0.05
)

// trend fits the samples taken at or after warm.
func trend(samples []rssSample, warm time.Duration) rssTrend {
	t := rssTrend{from: warm, samples: len(samples)}
	var xs, ys []float64
	for _, s := range samples {
		mb := float64(s.rss) / 1000
		t.peak = max(t.peak, mb)
		if s.at >= warm {
			xs, ys = append(xs, s.at.Minutes()), append(ys, mb)
			t.to = s.at
		}
	}
	t.used = len(xs)
	if t.enough = len(xs) >= 3; !t.enough {
		return t
	}
	t.first, t.last = ys[0], ys[len(ys)-1]
	var mx, my float64
	for i := range xs {
		mx, my = mx+xs[i], my+ys[i]
	}
	mx, my = mx/float64(len(xs)), my/float64(len(ys))
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	if sxx > 0 {
		t.slopePerMin = sxy / sxx
	}
	t.growth = t.slopePerMin * (xs[len(xs)-1] - xs[0])
	t.bound = max(flatBoundMB, flatBoundShare*t.first)
	t.flat = t.growth < t.bound
	return t
}

// String says how the RSS moved and how flat was judged.
func (t rssTrend) String() string {
	if !t.enough {
		return fmt.Sprintf("peak %.1f MB; too few samples after the warm-up (%d) to judge", t.peak, t.used)
	}
	verdict := "flat"
	if !t.flat {
		verdict = "GROWING"
	}
	return fmt.Sprintf("%s: %.1f MB at %s, %.1f MB at %s, peak %.1f MB; slope %+.2f MB/min over %d samples, %+.1f MB over the stretch (flat: under %.1f MB)",
		verdict, t.first, t.from.Round(time.Second), t.last, t.to.Round(time.Second), t.peak, t.slopePerMin, t.used, t.growth, t.bound)
}
