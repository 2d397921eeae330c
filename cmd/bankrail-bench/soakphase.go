package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bankrail/bankrail/internal/app"
)

// soakP99Target is issue 31's bound on the soak's p99 latency.
const soakP99Target = 50 * time.Millisecond

// runSoak runs the soak phase on a started bankrail (soak.go).
func runSoak(ctx context.Context, o loadOptions, d *driver, a *app.App) (*soakResult, error) {
	var notified atomic.Int64
	ln, err := slowReceiver(o.soakDelay, &notified)
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	receiverURL := "http://" + ln.Addr().String() + "/notify"
	s, err := newSoakState(d, receiverURL)
	if err != nil {
		return nil, err
	}
	res := &soakResult{calibration: min(max(o.soakDuration/10, time.Second), time.Minute), duration: o.soakDuration,
		receiverDelay: o.soakDelay}
	// The capacity is the rate of the calibration's last third: by then
	// the notifications it caused are being delivered beside it, so half
	// of it is half of a rate the machine sustains with its background
	// work, not of a burst before that work began.
	full := &soakRun{s: s, conns: o.connections, dur: res.calibration}
	var settled atomic.Int64
	third := time.AfterFunc(res.calibration*2/3, func() { settled.Store(full.total.Load()) })
	err = full.run()
	third.Stop()
	if err != nil {
		return nil, err
	}
	res.capacity = float64(full.total.Load()-settled.Load()) / (res.calibration / 3).Seconds()
	res.rate = res.capacity * o.soakLoad
	fmt.Printf("  soak: the mix's capacity %.0f op/s (the last third of %s at full load, %d connections); now %.0f op/s for %s\n",
		res.capacity, res.calibration, o.connections, res.rate, o.soakDuration)
	s.mu.Lock()
	clear(s.ops)
	s.mu.Unlock()
	paced := &soakRun{s: s, conns: o.connections, rate: res.rate, dur: o.soakDuration}
	res.loadAvg[0] = loadAverage()
	stop := make(chan struct{})
	samples := sampleRSS(min(max(o.soakDuration/120, 100*time.Millisecond), 5*time.Second), stop)
	err = paced.run()
	close(stop)
	res.loadAvg[1] = loadAverage()
	if err != nil {
		return nil, err
	}
	res.rss = trend(samples(), min(time.Minute, o.soakDuration/5))
	res.ops = maps.Clone(s.ops)
	res.total = paced.total.Load()
	res.errors = full.errors.Load() + paced.errors.Load()
	for _, r := range []*soakRun{full, paced} {
		if msg := r.first.Load(); msg != nil && res.firstErr == "" {
			res.firstErr = *msg
		}
	}
	res.p50, res.p99 = paced.hist.quantile(0.50), paced.hist.quantile(0.99)
	res.late = paced.late.Load()
	res.notified = notified.Load()
	res.notifications, err = notificationsByStatus(ctx, a, receiverURL)
	if err != nil {
		return nil, err
	}
	fmt.Printf("  soak: %s\n", res.summary())
	if res.firstErr != "" {
		fmt.Printf("  soak: %s (%d failed)\n", res.firstErr, res.errors)
	}
	return res, nil
}

// notificationsByStatus counts the server's notifications to url by status.
func notificationsByStatus(ctx context.Context, a *app.App, url string) (map[string]int64, error) {
	_, read := a.Store().Pools()
	rows, err := read.QueryContext(ctx, `SELECT status, COUNT(*) FROM notifications WHERE url = $1 GROUP BY status`, url)
	if err != nil {
		return nil, fmt.Errorf("count the soak's notifications: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var status string
		var n int64
		if err := rows.Scan(&status, &n); err != nil {
			return nil, fmt.Errorf("count the soak's notifications: %w", err)
		}
		out[status] = n
	}
	return out, rows.Err()
}

// met reports whether the soak met issue 31's targets: no error, p99 under
// 50 ms, RSS flat after the warm-up.
func (r *soakResult) met() bool {
	return r.errors == 0 && r.p99 < soakP99Target && r.rss.enough && r.rss.flat
}

// summary is one line of what the soak measured.
func (r *soakResult) summary() string {
	kinds := slices.Sorted(maps.Keys(r.ops))
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d", k, r.ops[k])
	}
	return fmt.Sprintf("%d operations in %s (%s; paced at %.0f op/s, %.0f%% of the mix's capacity %.0f op/s), p50 %s, p99 %s, %d started over 1 s late, %d errors; "+
		"RSS %s; notifications: %d answered by the receiver (%s each), by status at the end %s; machine load %s → %s",
		r.total, r.duration, strings.Join(parts, ", "), r.rate, 100*r.rate/max(r.capacity, 1e-9), r.capacity, r.p50, r.p99, r.late, r.errors, r.rss,
		r.notified, r.receiverDelay, formatCounts(r.notifications), r.loadAvg[0], r.loadAvg[1])
}

// loadAverage is the machine's 1-minute load average ("?" unknown).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

// formatCounts writes counts by key, sorted.
func formatCounts(m map[string]int64) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
