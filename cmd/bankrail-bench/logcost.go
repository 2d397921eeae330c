package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/bankrail/bankrail/internal/logbuf"
)

// logLines is how many access log lines lineCost writes per measurement.
const logLines = 100_000

// lineCosts is the CPU one access log line costs, written to a file as
// bankrail serve writes it (through internal/logbuf) and, for comparison,
// with one write per line.
type lineCosts struct {
	buffered, direct time.Duration
}

// measureLineCost measures lineCosts in dir. The difference between the
// -log phases and the others is below the noise of a shared machine; the
// line by itself is not: this process's CPU time over logLines lines, one
// goroutine, nothing else running in the process.
func measureLineCost(dir string) (lineCosts, error) {
	f, err := os.CreateTemp(dir, "access-*.log")
	if err != nil {
		return lineCosts{}, err
	}
	defer f.Close()
	var c lineCosts
	c.direct = lineCost(f)
	out := logbuf.New(f, 100*time.Millisecond)
	c.buffered = lineCost(out)
	return c, out.Close()
}

// lineCost is the CPU per line of writing logLines lines of the access
// log's shape (internal/httpapi withAccessLog) at INFO to w.
func lineCost(w io.Writer) time.Duration {
	log := slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if b, ok := w.(*logbuf.Writer); ok {
		log = slog.New(b.Handler(log.Handler()))
	}
	ctx := context.Background()
	cpu0 := cpuTime()
	for i := range logLines {
		log.LogAttrs(ctx, slog.LevelInfo, "request", slog.String("method", "GET"),
			slog.String("path", "/payments/6f1c2a52-8d1e-4a8e-9a51-3f0d2c1b7e40"), slog.String("route", "GET /payments/{paymentId}"),
			slog.Int("status", 200), slog.Int("bytes", 1432), slog.Duration("duration", time.Duration(i)*time.Microsecond),
			slog.String("request_id", "01J9Z6X8W2M4K7Q3T5V8B1N6C0"))
	}
	return (cpuTime() - cpu0) / logLines
}

// lineShare is a line's cost as a share of a request's CPU.
func lineShare(line time.Duration, perRequestMicros float64) string {
	return fmt.Sprintf("%.1f%%", 100*float64(line.Nanoseconds())/1000/max(perRequestMicros, 1e-9))
}
