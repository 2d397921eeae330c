package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"
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
    second of the writer in those transactions (SQLite; not measured on PostgreSQL); on PostgreSQL the CPU per request of the run's own
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
	fs.DurationVar(&o.soakDuration, "soak-duration", 10*time.Minute, "how long the soak phase runs paced (after a calibration of a tenth of it, 1-60 s, at full load: the capacity is the rate of its last third)")
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
