package main

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// readCounts are the heavy reads done during the loaded phases.
type readCounts struct {
	reports, pages atomic.Int64
	reportTime     atomic.Int64 // nanoseconds
}

// describe says what was read, each report of rows rows.
func (c *readCounts) describe(rows int) string {
	rate := 0.0
	if t := time.Duration(c.reportTime.Load()); t > 0 {
		rate = float64(c.reports.Load()) * float64(rows) / t.Seconds()
	}
	return fmt.Sprintf("%d reports of %d rows (%.0f rows/s while generating), %d list pages", c.reports.Load(), rows, rate, c.pages.Load())
}

// withReads runs phase while one client generates PAYMENTS reports of
// period, one after the other, and readers clients read list pages (deep
// pages by number, and filtered pages), each a page every pageEvery (0:
// back to back); it waits for the report in progress to end before it
// returns.
func (b *bench) withReads(c *readCounts, readers int, pageEvery time.Duration, period []byte, phase func()) error {
	var stop atomic.Bool
	var wg sync.WaitGroup
	errc := make(chan error, readers+1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			t := time.Now()
			if _, err := b.generate(period, nil); err != nil {
				errc <- err
				return
			}
			c.reports.Add(1)
			c.reportTime.Add(int64(time.Since(t)))
		}
	}()
	paths := []string{"/payments?limit=100&page=%d", "/payments?limit=100&currency=EUR&page=%d", "/payments?limit=50&status=NEW_PAYMENT&page=%d"}
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			next := time.Now()
			for i := r; !stop.Load(); i++ {
				if w := time.Until(next); w > 0 {
					time.Sleep(w) // pacing the load generator, not test logic
				}
				next = next.Add(pageEvery)
				req, _ := http.NewRequest("GET", b.appURL+fmt.Sprintf(paths[i%len(paths)], 1+(i*37)%200), nil)
				req.Header.Set("Authorization", "Bearer "+b.token)
				if _, err := b.do(req, http.StatusOK); err != nil {
					errc <- err
					return
				}
				c.pages.Add(1)
			}
		}()
	}
	phase()
	stop.Store(true)
	wg.Wait()
	close(errc)
	return <-errc
}
