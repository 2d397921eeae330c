package worker

import (
	"sync"
	"time"
)

// Beat calls beat every interval in a goroutine of its own until beat
// returns false or stop is called; stop returns once the goroutine has
// ended, so nothing beats after it. It is the loop of the heartbeats that
// keep a lease alive while its holder lives (Idempotency-Keys, notification
// deliveries, claimed jobs).
func Beat(every time.Duration, beat func() (again bool)) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if !beat() {
				return
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
