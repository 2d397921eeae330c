package main

import (
	"context"
	"errors"
	"flag"
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

// loadUsage explains the load subcommand.
const loadUsage = `bankrail-bench load [--connections 32] [--duration 10s] [--rounds 4] [--database-url URL]
    [--engines sqlite,postgres] [--phases bare,create,create-key,read] [--cpuprofile FILE [--cpuprofile-phase P]] [--write FILE]
    [--soak-duration 10m] [--soak-load 0.5] [--soak-receiver-delay 100ms]
    many concurrent keep-alive connections, like wrk -t2 -c32 -d10s, against a bare Go net/http
    server answering fixed JSON and bankrail (in this process, on loopback), in rounds that run
    every phase in turn; each figure is also given as a ratio to the bare server's rate in the
    same round (the median over rounds). Phases: bare, create (POST /payments), create-key (with
    a fresh Idempotency-Key each), read (GET /payments/{id}), list (GET /payments, page 1),
    create-log and read-log (the same with the access log at INFO, written to a file), floor (the
    payment row of a create INSERTed plainly on the writer pool: rows per CPU second beside
    the creates'), soak (once, after the rounds: creates, reads, payins and refunds with their
    notifications to a slow receiver, at --soak-load of the mix's capacity for --soak-duration;
    p99, RSS over time, errors). units/tx is how many requests' writes shared each transaction
    the store committed (group commit, from /metrics); per writer CPU-s is requests per CPU
    second of the writer in those transactions; on PostgreSQL the CPU per request of the run's own
    database backends is given too (the database shares the machine's cores). With
    --database-url both engines run (--engines to choose). --write updates the measured section
    of a Markdown file (docs/performance.md) and, from the same run, its soak section and
    issue 31's targets table. --cpuprofile-phase P limits the profile to phase P's run in the
    first round (one engine), so that it shows that phase alone. Any failed request fails the command.`

// loadOptions are the flags of load.
type loadOptions struct {
	connections int
	duration    time.Duration
	warmup      time.Duration
	rounds      int
	databaseURL string
	engines     []string
	phases      []string
	cpuProfile  string
	// profilePhase, when set, limits the CPU profile to that phase's run
	// in the first round (one engine).
	profilePhase string
	write        string
	args         []string
	// The soak phase (soak.go): its length, its load as a share of the
	// mix's capacity, the slow receiver's delay.
	soakDuration time.Duration
	soakLoad     float64
	soakDelay    time.Duration
}

var knownPhases = []string{"bare", "create", "create-key", "read", "list", "create-log", "read-log", "floor", "soak"}

func parseLoadFlags(args []string) (loadOptions, error) {
	o := loadOptions{args: args}
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprintln(fs.Output(), loadUsage) }
	var engines, phases string
	fs.IntVar(&o.connections, "connections", 32, "concurrent keep-alive connections")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "how long each phase runs in each round")
	fs.DurationVar(&o.warmup, "warmup", 2*time.Second, "creations before the first round (warms the pools and gives reads their payments)")
	fs.IntVar(&o.rounds, "rounds", 4, "rounds; every phase runs once per round")
	fs.StringVar(&o.databaseURL, "database-url", "", "postgres://... for PostgreSQL (a fresh schema is created and dropped)")
	fs.StringVar(&engines, "engines", "", "engines to measure: sqlite, postgres (default: sqlite, and postgres with --database-url)")
	fs.StringVar(&phases, "phases", "bare,create,create-key,read", "phases of each round, in order: "+strings.Join(knownPhases, ", "))
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the rounds (server and client) to this file")
	fs.StringVar(&o.profilePhase, "cpuprofile-phase", "", "profile only this phase's run in the first round (one engine)")
	fs.StringVar(&o.write, "write", "", "update the measured section of this Markdown file (docs/performance.md)")
	fs.DurationVar(&o.soakDuration, "soak-duration", 10*time.Minute, "how long the soak phase runs paced (after a calibration of a tenth of it, 1-20 s, at full load)")
	fs.Float64Var(&o.soakLoad, "soak-load", 0.5, "the soak's rate as a share of the mix's capacity measured by its calibration")
	fs.DurationVar(&o.soakDelay, "soak-receiver-delay", 100*time.Millisecond, "how long the soak's notification receiver takes to answer each notification")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case o.connections < 1 || o.connections > 1024:
		return o, errors.New("--connections must be from 1 to 1024")
	case o.duration <= 0 || o.duration > 10*time.Minute || o.warmup < 0 || o.warmup > time.Minute:
		return o, errors.New("--duration must be positive and at most 10m, --warmup at most 1m")
	case o.rounds < 1 || o.rounds > 100:
		return o, errors.New("--rounds must be from 1 to 100")
	case o.soakDuration <= 0 || o.soakDuration > time.Hour || o.soakLoad <= 0 || o.soakLoad > 1 || o.soakDelay < 0 || o.soakDelay > 10*time.Second:
		return o, errors.New("--soak-duration must be positive and at most 1h, --soak-load in (0, 1], --soak-receiver-delay 0-10s")
	}
	if engines == "" {
		engines = "sqlite"
		if o.databaseURL != "" {
			engines += ",postgres"
		}
	}
	for _, e := range strings.Split(engines, ",") {
		switch e = strings.TrimSpace(e); e {
		case "sqlite", "postgres":
			if e == "postgres" && o.databaseURL == "" {
				return o, errors.New("--engines postgres needs --database-url")
			}
			o.engines = append(o.engines, e)
		default:
			return o, fmt.Errorf("unknown engine %q", e)
		}
	}
	for _, p := range strings.Split(phases, ",") {
		if p = strings.TrimSpace(p); !slices.Contains(knownPhases, p) {
			return o, fmt.Errorf("unknown phase %q; known: %s", p, strings.Join(knownPhases, ", "))
		}
		o.phases = append(o.phases, p)
	}
	if !slices.Contains(o.phases, "bare") {
		o.phases = append([]string{"bare"}, o.phases...) // every ratio needs it
	}
	if o.profilePhase != "" && (o.cpuProfile == "" || len(o.engines) != 1 || !slices.Contains(o.phases, o.profilePhase)) {
		return o, errors.New("--cpuprofile-phase needs --cpuprofile, one engine and a phase that runs")
	}
	return o, nil
}

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
