package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
)

// replicaUsage explains the replica subcommand.
const replicaUsage = `bankrail-bench replica --database-url PRIMARY --replica-url STANDBY [--payments 1000000]
    [--clients 8] [--readers 2] [--page-every 1s] [--duration 20s] [--rounds 4] [--report-duty-cycle 25] [--compare-duty-cycle 50]
    on a fresh schema of the primary (its standby streams it): bulk-seeds N payments (COPY), waits
    until the standby has replayed them, then measures POST /payments from --clients clients in
    rounds of three phases: creates alone (the reference); creates while a PAYMENTS report of
    every payment is generated again and again and --readers clients read list pages (each a
    page every --page-every: a back office's pace, not a flood; 0 reads them back to back), all
    served by the standby (--replica-url); the same reads with the replica switched off, on the
    primary; with --compare-duty-cycle, a fourth phase: the reads on the standby with reports
    generated at that duty cycle instead of --report-duty-cycle (50 is the pacer before it was a
    setting); the phases' order turns each round. Prints creates' req/s and each loaded phase's
    ratio to the reference, overall and round by round (issue 32's target: >= 0.80 with the
    replica), and the reads done in each.`

// replicaOptions are the flags of replica.
type replicaOptions struct {
	databaseURL, replicaURL string
	payments                int
	clients, readers        int
	pageEvery               time.Duration // each list reader's pace (0: back to back)
	duration                time.Duration
	rounds                  int
	duty, compareDuty       int
}

func parseReplicaFlags(args []string) (replicaOptions, error) {
	var o replicaOptions
	fs := flag.NewFlagSet("replica", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprintln(fs.Output(), replicaUsage) }
	fs.StringVar(&o.databaseURL, "database-url", "", "the primary: postgres://...")
	fs.StringVar(&o.replicaURL, "replica-url", "", "its streaming standby: postgres://...")
	fs.IntVar(&o.payments, "payments", 1_000_000, "payments to seed")
	fs.IntVar(&o.clients, "clients", 8, "concurrent clients of POST /payments")
	fs.IntVar(&o.readers, "readers", 2, "concurrent clients of list pages (beside one client of reports)")
	fs.DurationVar(&o.pageEvery, "page-every", time.Second, "each list reader reads a page this often (0: one after the other, as fast as they come)")
	fs.DurationVar(&o.duration, "duration", 20*time.Second, "how long each phase runs in all (split into --rounds)")
	fs.IntVar(&o.rounds, "rounds", 4, "rounds of the phases, alternating")
	fs.IntVar(&o.duty, "report-duty-cycle", config.DefaultReportDutyCycle, "the instance's --report-duty-cycle")
	fs.IntVar(&o.compareDuty, "compare-duty-cycle", 0, "1 to 100: a fourth phase, the reads on the standby with reports at this duty cycle (0: none)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case !isPostgres(o.databaseURL) || !isPostgres(o.replicaURL):
		return o, errors.New("--database-url and --replica-url must both be postgres:// URLs")
	case o.payments < 1 || o.payments > 20_000_000:
		return o, errors.New("--payments must be from 1 to 20000000")
	case o.clients < 1 || o.clients > 256 || o.readers < 0 || o.readers > 64 || o.pageEvery < 0:
		return o, errors.New("--clients must be from 1 to 256, --readers from 0 to 64, --page-every not negative")
	case o.duration <= 0 || o.duration > 10*time.Minute || o.rounds < 1 || o.rounds > 50:
		return o, errors.New("--duration must be positive, at most 10m; --rounds from 1 to 50")
	case o.duty < 1 || o.duty > 100 || o.compareDuty < 0 || o.compareDuty > 100:
		return o, errors.New("--report-duty-cycle must be from 1 to 100, --compare-duty-cycle from 0 (none) to 100")
	}
	return o, nil
}

func isPostgres(u string) bool {
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "postgres" || p.Scheme == "postgresql")
}

// runReplica measures creates on the primary beside heavy reads on the
// replica, and beside the same reads on the primary.
func runReplica(args []string) error {
	o, err := parseReplicaFlags(args)
	if err != nil {
		return err
	}
	ctx := context.Background()
	cfg, cleanup, err := benchConfig(ctx, o.databaseURL)
	if err != nil {
		return err
	}
	defer cleanup()
	// The standby holds the same schema (it streams the primary).
	schema, _ := url.Parse(cfg.DatabaseURL)
	ru, _ := url.Parse(o.replicaURL)
	q := ru.Query()
	q.Set("search_path", schema.Query().Get("search_path"))
	ru.RawQuery = q.Encode()
	cfg.ReplicaURL, cfg.WriteTimeout, cfg.ReportDutyCycle = ru.String(), 0, o.duty
	a, err := startBench(ctx, cfg)
	if err != nil {
		return err
	}
	defer shutdown(a)
	now := time.Now().Truncate(time.Second)
	start := time.Now()
	if err := copyPayments(ctx, a, cfg.DatabaseURL, o.payments, now.Add(-time.Minute)); err != nil {
		return err
	}
	fmt.Printf("bankrail-bench replica: %d payments seeded by COPY in %s\n", o.payments, time.Since(start).Round(time.Millisecond))
	if err := analyze(ctx, a, true); err != nil {
		return err
	}
	if err := awaitReplica(a, 10*time.Minute); err != nil {
		return err
	}
	fmt.Printf("the standby replayed them %s after the seed began\n", time.Since(start).Round(time.Millisecond))
	b := newBench(options{clients: o.clients, rounds: 1}, "http://"+a.Addr(), "")
	if err := b.login(); err != nil {
		return err
	}
	period, _ := json.Marshal(map[string]string{"startDate": now.Add(-91 * 24 * time.Hour).UTC().Format(time.RFC3339),
		"endDate": now.UTC().Format(time.RFC3339)})
	ps := replicaPhases(ctx, a, b, o, period)
	round := o.duration / time.Duration(o.rounds)
	rps := make([][]float64, len(ps)) // per phase, per round
	for r := range o.rounds {
		for k := range ps { // the order turns each round: a drift of the machine's load hits each phase alike
			p := ps[(r+k)%len(ps)]
			n, e := len(p.s.lat), p.s.elapsed
			if err := p.run(round); err != nil {
				return err
			}
			rps[(r+k)%len(ps)] = append(rps[(r+k)%len(ps)], float64(len(p.s.lat)-n)/(p.s.elapsed-e).Seconds())
		}
	}
	fmt.Printf("\n%-40s %10s %10s %10s %10s %8s %8s\n", "phase", "req/s", "p50", "p99", "CPU/req", "errors", "ratio")
	ref := ps[0].s.result()
	failed := 0
	for i, p := range ps {
		r, ratio := p.s.result(), ""
		if i > 0 {
			ratio = fmt.Sprintf("%.2f", r.rps()/max(ref.rps(), 1e-9))
		}
		failed += r.errors
		fmt.Printf("%-40s %10.0f %10s %10s %10s %8d %8s\n", r.name, r.rps(), r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond),
			r.cpuPerOp().Round(time.Microsecond), r.errors, ratio)
	}
	fmt.Println("CPU/req: this process's CPU (bankrail and its clients, not the databases) per create, in the phase")
	fmt.Println("ratios round by round (the same round's creates alone as reference):")
	for i, p := range ps[1:] {
		v := pairRatios(rps[i+1], rps[0])
		fmt.Printf("  %-40s %s (median %.2f); %s\n", p.s.name, joinRatios(v), median(v), p.reads.describe(o.payments))
	}
	fmt.Printf("reads meant for the replica read on the primary: %d\n", a.Store().ReplicaFallbacks())
	if failed > 0 {
		return fmt.Errorf("%d creates failed", failed)
	}
	return nil
}

// replicaPhase is one phase of the replica measurement: creates, and
// what runs beside them.
type replicaPhase struct {
	s     *sample
	reads *readCounts // nil: none
	run   func(d time.Duration) error
}

// replicaPhases are creates alone (the reference), creates beside reads on
// the replica, beside the same reads on the primary, and (with
// --compare-duty-cycle) beside reads on the replica whose reports are
// generated at the other duty cycle.
func replicaPhases(ctx context.Context, a *app.App, b *bench, o replicaOptions, period []byte) []replicaPhase {
	alone := &sample{name: "creates alone"}
	onReplica := replicaPhase{s: &sample{name: fmt.Sprintf("creates + reads on replica (duty %d %%)", o.duty)}, reads: &readCounts{}}
	onReplica.run = func(d time.Duration) error {
		return b.withReads(onReplica.reads, o.readers, o.pageEvery, period, func() { b.run(onReplica.s, d, b.postPayment) })
	}
	onPrimary := replicaPhase{s: &sample{name: fmt.Sprintf("creates + reads on primary (duty %d %%)", o.duty)}, reads: &readCounts{}}
	onPrimary.run = func(d time.Duration) error {
		a.Replica().Stop() // reads on the primary
		err := b.withReads(onPrimary.reads, o.readers, o.pageEvery, period, func() { b.run(onPrimary.s, d, b.postPayment) })
		a.Replica().Start(ctx)
		if err != nil {
			return err
		}
		return awaitReplica(a, time.Minute)
	}
	ps := []replicaPhase{{s: alone, run: func(d time.Duration) error { b.run(alone, d, b.postPayment); return nil }}, onReplica, onPrimary}
	if o.compareDuty > 0 {
		other := replicaPhase{s: &sample{name: fmt.Sprintf("creates + reads on replica (duty %d %%)", o.compareDuty)}, reads: &readCounts{}}
		other.run = func(d time.Duration) error {
			a.Reports().SetDutyCycle(o.compareDuty)
			defer a.Reports().SetDutyCycle(o.duty)
			return b.withReads(other.reads, o.readers, o.pageEvery, period, func() { b.run(other.s, d, b.postPayment) })
		}
		ps = append(ps, other)
	}
	return ps
}

// awaitReplica waits until the instance reads on its replica.
func awaitReplica(a *app.App, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for !a.Replica().Used() {
		if time.Now().After(deadline) {
			return fmt.Errorf("the replica was not in use within %s", limit)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}
