package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/logbuf"
	"github.com/bankrail/bankrail/internal/seed"
)

// phaseResult is what one phase measured over every round.
type phaseResult struct {
	name   string
	rps    []float64 // per round
	ratio  []float64 // per round: rps over the bare server's in the same round
	cores  []float64 // per round: CPU of this process (server and client) over the phase's time
	cpu    []float64 // per round: requests per CPU second of this process, over the bare server's
	cpuReq []float64 // per round: CPU microseconds of this process per request (server and client)
	lat    []time.Duration
	errors int
	units  []float64 // per round: units of work per committed transaction of the store (0: none committed)
	// writer: per round, requests (floor: rows) per CPU second of the
	// store's writer in its transactions (writerCPU; 0: none committed).
	writer []float64
	// dbReq: per round, CPU microseconds of the PostgreSQL backends of the
	// run per request (dbcpu.go; empty on SQLite, whose work is in cpuReq).
	dbReq []float64
}

// engineResult are one engine's phases.
type engineResult struct {
	engine  string
	version string
	phases  []*phaseResult
	line    lineCosts // CPU of one access log line (logcost.go)
	soak    *soakResult
}

func runLoad(args []string) error {
	o, err := parseLoadFlags(args)
	if err != nil {
		return err
	}
	ctx := context.Background()
	bare, err := startBare()
	if err != nil {
		return err
	}
	defer bare.Close()
	whole := o.cpuProfile
	if o.profilePhase != "" {
		whole = "" // loadEngine profiles the one phase
	}
	stopProfile, err := startCPUProfile(whole)
	if err != nil {
		return err
	}
	defer stopProfile()
	var results []engineResult
	failed := 0
	for _, engine := range o.engines {
		url := ""
		if engine == "postgres" {
			url = o.databaseURL
		}
		r, err := loadEngine(ctx, o, url, bare.Addr().String())
		if err != nil {
			return fmt.Errorf("%s: %w", engine, err)
		}
		for _, p := range r.phases {
			failed += p.errors
		}
		if r.soak != nil {
			failed += int(r.soak.errors)
		}
		results = append(results, r)
	}
	if o.write != "" {
		if err := writePerformance(o, results); err != nil {
			return err
		}
		if slices.Contains(o.phases, "soak") {
			if err := writeSoak(o, results); err != nil {
				return err
			}
		}
		if err := writeTargets(o, results); err != nil {
			return err
		}
		fmt.Printf("\nwrote the measured section of %s\n", o.write)
	}
	if failed > 0 {
		return fmt.Errorf("%d requests failed", failed)
	}
	return nil
}

// bareJSON is what the bare server answers: a small fixed JSON object.
var bareJSON = []byte(`{"id":"6f1c2a52-8d1e-4a8e-9a51-3f0d2c1b7e40","status":"NEW_PAYMENT","amount":1050,"currency":"EUR"}`)

// startBare serves GET /bare with bareJSON on a loopback port: plain
// net/http, no middleware, the floor of any Go HTTP server on this machine.
func startBare() (net.Listener, error) {
	ln, err := loopback()
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /bare", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(bareJSON)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return ln, nil
}

// loadEngine starts bankrail on a fresh database of one engine and runs the
// rounds.
func loadEngine(ctx context.Context, o loadOptions, databaseURL, bareAddr string) (engineResult, error) {
	cfg, cleanup, err := benchConfig(ctx, databaseURL)
	if err != nil {
		return engineResult{}, err
	}
	defer cleanup()
	// The access log goes to a file; it is on (INFO) only in the -log phases.
	logFile, err := os.Create(cfg.DataDir + "/access.log")
	if err != nil {
		return engineResult{}, err
	}
	defer logFile.Close()
	level := new(slog.LevelVar)
	level.Set(slog.LevelWarn)
	cfg.LogLevel = "info"
	// Buffered as bankrail serve buffers it (cmd/bankrail/serve.go).
	out := logbuf.New(logFile, 100*time.Millisecond)
	defer out.Close()
	log := slog.New(out.Handler(slog.NewTextHandler(out, &slog.HandlerOptions{Level: level})))
	demo := seed.Demo("")
	a, err := app.New(ctx, cfg, log, app.Options{Seed: &demo})
	if err != nil {
		return engineResult{}, fmt.Errorf("start bankrail: %w", err)
	}
	if err := a.Start(ctx); err != nil {
		return engineResult{}, err
	}
	defer shutdown(a)
	res := engineResult{engine: "SQLite", version: engineVersion(ctx, a, false)}
	if cfg.UsesPostgres() {
		res.engine, res.version = "PostgreSQL", engineVersion(ctx, a, true)
	}
	b := newBench(options{clients: 1}, "http://"+a.Addr(), "")
	if err := b.login(); err != nil {
		return res, err
	}
	d := &driver{o: o, app: a.Addr(), bare: bareAddr, token: b.token, body: b.body, level: level}
	fmt.Printf("\nbankrail-bench load: %s (%s), %d connections, %s per phase, %d rounds\n", res.engine, res.version,
		o.connections, o.duration, o.rounds)
	if o.warmup > 0 {
		if _, err := d.run(d.phase("create"), o.warmup); err != nil {
			return res, err
		}
	}
	byName := map[string]*phaseResult{}
	first, err := readTxCounts(a.Addr())
	if err != nil {
		return res, err
	}
	var rounds []string // every phase but soak, which runs once after the rounds
	for _, name := range o.phases {
		if name == "soak" {
			continue
		}
		rounds = append(rounds, name)
		p := &phaseResult{name: name}
		byName[name] = p
		res.phases = append(res.phases, p)
	}
	for round := range o.rounds {
		rates, perCPU := map[string]float64{}, map[string]float64{}
		for _, name := range rounds {
			tx0, err := readTxCounts(a.Addr())
			if err != nil {
				return res, err
			}
			var m measured
			var count int // requests, or the floor's rows
			var writer float64
			db0 := databaseCPU(ctx, a, cfg.UsesPostgres())
			if name == "floor" {
				f, err := runFloor(ctx, a, o.duration, int(floorGroup(byName)+0.5))
				if err != nil {
					return res, err
				}
				m, count, writer = f.m, f.rows, f.cpu.Seconds()
			} else if m, err = d.runProfiled(d.phase(name), o.duration, round == 0 && name == o.profilePhase); err != nil {
				return res, err
			}
			tx1, err := readTxCounts(a.Addr())
			if err != nil {
				return res, err
			}
			p := byName[name]
			if name == "floor" {
				p.units = append(p.units, floorGroup(byName))
				m.lat = nil // per transaction, not per request: no latency shown
			} else {
				p.units = append(p.units, unitsPerTx(tx0, tx1))
				count, writer = len(m.lat), writerCPU(tx0, tx1)
			}
			if db0 != nil && count > 0 {
				p.dbReq = append(p.dbReq, float64(cpuSince(db0, databaseCPU(ctx, a, true)).Microseconds())/float64(count))
			}
			perWriter := 0.0
			if writer > 0 {
				perWriter = float64(count) / writer
			}
			p.writer = append(p.writer, perWriter)
			rates[name] = m.rps
			perCPU[name] = m.perCPU
			p.rps = append(p.rps, m.rps)
			p.cores = append(p.cores, m.cores)
			p.cpuReq = append(p.cpuReq, 1e6/max(m.perCPU, 1e-9))
			p.lat = append(p.lat, m.lat...)
			p.errors += m.errors
		}
		for _, name := range rounds {
			byName[name].ratio = append(byName[name].ratio, rates[name]/max(rates["bare"], 1))
			byName[name].cpu = append(byName[name].cpu, perCPU[name]/max(perCPU["bare"], 1))
		}
		fmt.Printf("  round %d:", round+1)
		for _, name := range rounds {
			fmt.Printf(" %s %.0f/s", name, rates[name])
		}
		fmt.Println()
	}
	fmt.Printf("\n%-12s %10s %10s %10s %8s %6s %8s %9s %8s %9s  %s\n", "phase", "req/s", "p50", "p99", "errors", "cores", "CPU/req", "÷ bare/CPU", "units/tx", "/wCPU-s", "÷ bare (median; per round)")
	for _, p := range res.phases {
		p50, p99 := percentiles(p.lat)
		fmt.Printf("%-12s %10.0f %10s %10s %8d %6.2f %6.0fµs %9.3f %8s %9s  %.3f (%s)\n", p.name, median(p.rps), p50, p99, p.errors,
			median(p.cores), median(p.cpuReq), median(p.cpu), formatUnits(median(p.units)), formatWriter(median(p.writer)), median(p.ratio), joinRatios(p.ratio))
	}
	if line := databaseCPULine(res.phases); line != "" {
		fmt.Println(line)
	}
	if gap := floorGap(byName); gap != "" {
		fmt.Println(gap)
	}
	if last, err := readTxCounts(a.Addr()); err == nil {
		fmt.Printf("units of work run again alone (all rounds): %.0f lost to another transaction, %.0f because their group failed, of %.0f committed\n",
			last.lost-first.lost, last.failed-first.failed, last.units-first.units)
	}
	for _, pair := range [][2]string{{"create", "create-log"}, {"read", "read-log"}} {
		if a, b := byName[pair[0]], byName[pair[1]]; a != nil && b != nil {
			fmt.Printf("access log at INFO: %s costs %+.1f%% CPU per request and %+.1f%% req/s against %s (medians of the per-round ratios)\n",
				pair[1], 100*(median(pairRatios(b.cpuReq, a.cpuReq))-1), 100*(median(pairRatios(b.rps, a.rps))-1), pair[0])
		}
	}
	if c, err := measureLineCost(cfg.DataDir); err == nil {
		res.line = c
		if read := byName["read"]; read != nil {
			fmt.Printf("access log line: %s CPU buffered (%s of a GET /payments/{id}), %s with a write per line (%s)\n", c.buffered,
				lineShare(c.buffered, median(read.cpuReq)), c.direct, lineShare(c.direct, median(read.cpuReq)))
		}
	}
	if slices.Contains(o.phases, "soak") {
		if res.soak, err = runSoak(ctx, o, d, a); err != nil {
			return res, err
		}
	}
	return res, nil
}

// engineVersion is the database's version string, short.
func engineVersion(ctx context.Context, a *app.App, postgres bool) string {
	_, read := a.Store().Pools()
	q := `SELECT 'SQLite ' || sqlite_version()`
	if postgres {
		q = `SELECT version()`
	}
	var v string
	if err := read.QueryRowContext(ctx, q).Scan(&v); err != nil {
		return "unknown version"
	}
	if f := strings.Fields(v); postgres && len(f) >= 2 {
		v = f[0] + " " + f[1]
	}
	return v
}

// databaseCPULine gives, on PostgreSQL, the backends' CPU per request of
// each phase (the median over rounds): with CPU/req, what a request costs
// the machine (the database shares its cores). Empty on SQLite.
func databaseCPULine(phases []*phaseResult) string {
	var parts []string
	for _, p := range phases {
		if len(p.dbReq) > 0 && p.name != "bare" {
			parts = append(parts, fmt.Sprintf("%s %.0fµs", p.name, median(p.dbReq)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "database backends' CPU per request (PostgreSQL, median over rounds): " + strings.Join(parts, ", ")
}
