package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
)

// reportUsage explains the report subcommands.
const reportUsage = `bankrail-bench seed --payments N [--database-url URL | --data-dir DIR]
    inserts N payments of the sandbox demo merchant, spread over the last 90 days, into an
    existing database (so that a bankrail started on it has them)
bankrail-bench report --payments N [--database-url URL] [--clients C] [--load 3s] [--cpuprofile FILE]
    on a fresh database: seeds N payments, measures GET /payments/{id} unloaded (before the
    report and after it), then asks for a PAYMENTS report of all of them and measures its
    generation (rows/s), GET /payments/{id} while it generates, the download (rows/s) and the
    process's peak RSS (VmHWM) from the end of seeding on; on PostgreSQL on this machine, also
    the CPU time of the database's backends during the generation (from /proc); --cpuprofile
    writes a CPU profile of the generation alone; --reuse measures the database at
    --database-url or --data-dir as it is (seeded before by seed: the same data for runs of two
    builds one after the other), creating and dropping nothing`

// reportOptions are the flags of seed and report.
type reportOptions struct {
	payments    int
	databaseURL string
	dataDir     string
	clients     int
	load        time.Duration
	cpuProfile  string
	reuse       bool
}

func parseReportFlags(cmd string, args []string) (reportOptions, error) {
	var o reportOptions
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprintln(fs.Output(), reportUsage) }
	fs.IntVar(&o.payments, "payments", 100000, "payments to insert")
	fs.StringVar(&o.databaseURL, "database-url", "", "postgres://...; empty for SQLite")
	fs.StringVar(&o.dataDir, "data-dir", "", "seed: the SQLite data directory to fill (default: bankrail's)")
	fs.IntVar(&o.clients, "clients", 4, "report: concurrent clients of GET /payments/{id}")
	fs.DurationVar(&o.load, "load", 3*time.Second, "report: how long the unloaded GET /payments/{id} phase runs")
	fs.BoolVar(&o.reuse, "reuse", false, "report: measure the existing database at --database-url or --data-dir (seeded by seed)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", os.Getenv("BANKRAIL_BENCH_CPU"), "report: write a CPU profile of the generation alone to this file")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.payments < 1 || o.payments > 20_000_000 {
		return o, errors.New("--payments must be from 1 to 20000000")
	}
	if o.clients < 1 || o.clients > 256 || o.load <= 0 || o.load > 5*time.Minute {
		return o, errors.New("--clients must be from 1 to 256 and --load positive, at most 5m")
	}
	return o, nil
}

// runReport seeds a fresh database and measures a PAYMENTS report of it.
func runReport(args []string) error {
	o, err := parseReportFlags("report", args)
	if err != nil {
		return err
	}
	ctx := context.Background()
	cfg, cleanup, err := benchConfig(ctx, o.databaseURL)
	if o.reuse {
		cfg, cleanup, err = existingConfig(o)
	}
	if err != nil {
		return err
	}
	defer cleanup()
	cfg.WriteTimeout = 0
	a, err := startBench(ctx, cfg)
	if err != nil {
		return err
	}
	defer shutdown(a)
	engine := "SQLite"
	if cfg.UsesPostgres() {
		engine = "PostgreSQL"
	}
	now := time.Now().Truncate(time.Second) // the report's dates are written to the second
	start := time.Now()
	if o.reuse {
		if o.payments, err = countPayments(ctx, a, now.Add(-91*24*time.Hour), now); err != nil {
			return err
		}
		fmt.Printf("bankrail-bench report: %s, the existing database's %d payments of the last 91 days\n", engine, o.payments)
	} else {
		if err := seedPayments(ctx, a, o.payments, now.Add(-time.Minute), cfg.UsesPostgres()); err != nil {
			return err
		}
		fmt.Printf("bankrail-bench report: %s, %d payments seeded in %s\n", engine, o.payments, time.Since(start).Round(time.Millisecond))
		if err := analyze(ctx, a, cfg.UsesPostgres()); err != nil {
			return err
		}
	}
	b := newBench(options{clients: o.clients, rounds: 1, duration: o.load}, "http://"+a.Addr(), "")
	if err := b.login(); err != nil { // before the reset: a sign-in's argon2id takes 64 MiB for a moment
		return err
	}
	b.payIDs, err = samplePaymentIDs(ctx, a, 1000)
	if err != nil {
		return err
	}
	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS()
	base := peakRSS()
	unloaded := &sample{name: "GET /payments/{id}"}
	b.run(unloaded, o.load, b.getPayment)

	body, _ := json.Marshal(map[string]string{"startDate": now.Add(-91 * 24 * time.Hour).UTC().Format(time.RFC3339),
		"endDate": now.UTC().Format(time.RFC3339)})
	// Alone: the report's generation with nothing else running.
	stopProfile, err := startCPUProfile(o.cpuProfile) // a CPU profile of the generation alone
	if err != nil {
		return err
	}
	defer stopProfile() // on an early return; stopped below after the generation
	db0 := databaseCPU(ctx, a, cfg.UsesPostgres())
	cpu0, genStart := cpuTime(), time.Now()
	id, err := b.generate(body, nil)
	if err != nil {
		return err
	}
	gen, genCPU := time.Since(genStart), cpuTime()-cpu0
	genDBCPU := cpuSince(db0, databaseCPU(ctx, a, cfg.UsesPostgres()))
	stopProfile()
	// Under load: the same report again while clients read payments.
	loaded := &sample{name: "GET /payments/{id} during generation"}
	loadedStart := time.Now()
	if _, err := b.generate(body, loaded); err != nil {
		return err
	}
	genLoaded := time.Since(loadedStart)
	genRSS := peakRSS()

	dlStart := time.Now()
	cpu1 := cpuTime()
	rowsRead, bytesRead, err := b.download(id)
	if err != nil {
		return err
	}
	dl, dlCPU := time.Since(dlStart), cpuTime()-cpu1
	if rowsRead != o.payments {
		return fmt.Errorf("the report has %d rows, want %d", rowsRead, o.payments)
	}
	// Unloaded again: the reference is both windows pooled, so that a
	// neighbour's load that starts or stops meanwhile counts on both sides.
	b.run(unloaded, o.load, b.getPayment)
	u, l := unloaded.result(), loaded.result()
	fmt.Printf("generation alone: %d rows in %s = %.0f rows/s; %.0f rows per CPU second of the process (polled every 100 ms)\n",
		rowsRead, gen.Round(time.Millisecond), float64(rowsRead)/gen.Seconds(), float64(rowsRead)/genCPU.Seconds())
	if genDBCPU > 0 {
		fmt.Printf("generation alone, the database's side: %s of CPU in PostgreSQL's backends of this database; %.0f rows per CPU second of both processes\n",
			genDBCPU.Round(time.Millisecond), float64(rowsRead)/(genCPU+genDBCPU).Seconds())
	}
	fmt.Printf("generation under load: %s = %.0f rows/s\n", genLoaded.Round(time.Millisecond), float64(rowsRead)/genLoaded.Seconds())
	fmt.Printf("download: %d rows, %.1f MB in %s = %.0f rows/s; %.0f rows per CPU second (server and client)\n", rowsRead,
		float64(bytesRead)/1e6, dl.Round(time.Millisecond), float64(rowsRead)/dl.Seconds(), float64(rowsRead)/dlCPU.Seconds())
	fmt.Printf("GET /payments/{id}: %.0f req/s unloaded (before and after), %.0f req/s during generation: ratio %.2f (p50 %s -> %s)\n",
		u.rps(), l.rps(), l.rps()/max(u.rps(), 1), u.p50.Round(time.Microsecond), l.p50.Round(time.Microsecond))
	fmt.Printf("peak RSS (VmHWM) of the process (server and benchmark client): %.1f MB after seeding, %.1f MB after generation, %.1f MB after download\n",
		float64(base)/1e6, float64(genRSS)/1e6, float64(peakRSS())/1e6)
	if path := os.Getenv("BANKRAIL_BENCH_HEAP"); path != "" {
		if f, err := os.Create(path); err == nil {
			_ = pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("Go heap: %.1f MB obtained from the OS, %.1f MB in use at the end\n", float64(ms.HeapSys)/1e6, float64(ms.HeapInuse)/1e6)
	return nil
}

// existingConfig is the configuration of a run on the database of o, as
// it is.
func existingConfig(o reportOptions) (config.Config, func(), error) {
	cfg := config.Default()
	cfg.Addr, cfg.DatabaseURL, cfg.LogLevel = "127.0.0.1:0", o.databaseURL, "warn"
	if o.dataDir != "" {
		cfg.DataDir = o.dataDir
	}
	return cfg, func() {}, nil
}

// countPayments counts the payments created from from to to.
func countPayments(ctx context.Context, a *app.App, from, to time.Time) (int, error) {
	_, read := a.Store().Pools()
	var n int
	err := read.QueryRowContext(ctx, `SELECT COUNT(*) FROM payments WHERE created_at >= $1 AND created_at <= $2`,
		from.UnixMicro(), to.UnixMicro()).Scan(&n)
	return n, err
}

// generate asks for a report with body and waits until it is available,
// polling every 100 ms; with load, it drives GET /payments/{id} meanwhile.
func (b *bench) generate(body []byte, load *sample) (string, error) {
	var created struct{ ID string }
	if err := b.call("POST", "/reports/payments", body, &created); err != nil {
		return "", err
	}
	for {
		if load != nil {
			b.run(load, 100*time.Millisecond, b.getPayment)
		} else {
			time.Sleep(100 * time.Millisecond)
		}
		var rec struct{ Status string }
		if err := b.call("GET", "/reports/"+created.ID, nil, &rec); err != nil {
			return "", err
		}
		switch rec.Status {
		case "REPORT_AVAILABLE":
			return created.ID, nil
		case "REPORT_FAILED":
			return "", errors.New("the report failed")
		}
	}
}

// cpuTime is the CPU time (user and system) the process used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// call sends one authenticated JSON request and decodes the answer.
func (b *bench) call(method, path string, body []byte, out any) error {
	req, err := http.NewRequest(method, b.appURL+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+b.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		msg, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, msg)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// download streams a report and counts its data rows (lines after the
// header; references in the seed hold no line break).
func (b *bench) download(id string) (rows int, size int64, err error) {
	req, err := http.NewRequest("GET", b.appURL+"/reports/"+id+"/download", nil)
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+b.token)
	client := &http.Client{Transport: b.client.Transport}
	resp, err := client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("download: %d", resp.StatusCode)
	}
	r := bufio.NewReaderSize(resp.Body, 256<<10)
	lines := 0
	for {
		chunk, err := r.ReadSlice('\n')
		size += int64(len(chunk))
		if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			lines++
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			return lines - 1, size, nil
		}
		if err != nil {
			return 0, size, err
		}
	}
}

// peakRSS is the process's VmHWM in bytes (0 where /proc is absent).
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(rest), "%d", &kb)
			return kb * 1024
		}
	}
	return 0
}

// resetPeakRSS starts VmHWM again from the current RSS (Linux: writing 5
// to clear_refs), so that seeding does not count.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }
