package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bankrail/bankrail/internal/app"
)

// replicaUsage explains the replica subcommand.
const replicaUsage = `bankrail-bench replica --database-url PRIMARY --replica-url STANDBY [--payments 1000000]
    [--clients 8] [--readers 2] [--duration 20s] [--rounds 4]
    on a fresh schema of the primary (its standby streams it): bulk-seeds N payments (COPY), waits
    until the standby has replayed them, then measures POST /payments from --clients clients in
    rounds of three phases: creates alone (the reference); creates while a PAYMENTS report of
    every payment is generated again and again and --readers clients read list pages, all
    served by the standby (--replica-url); the same reads with the replica switched off, on the
    primary; the phases' order turns each round. Prints creates' req/s and each loaded phase's
    ratio to the reference, overall and round by round (issue 32's target: >= 0.80 with the
    replica), and the reads done in each.`

// replicaOptions are the flags of replica.
type replicaOptions struct {
	databaseURL, replicaURL string
	payments                int
	clients, readers        int
	duration                time.Duration
	rounds                  int
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
	fs.DurationVar(&o.duration, "duration", 20*time.Second, "how long each phase runs in all (split into --rounds)")
	fs.IntVar(&o.rounds, "rounds", 4, "rounds of the three phases, alternating")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case !isPostgres(o.databaseURL) || !isPostgres(o.replicaURL):
		return o, errors.New("--database-url and --replica-url must both be postgres:// URLs")
	case o.payments < 1 || o.payments > 20_000_000:
		return o, errors.New("--payments must be from 1 to 20000000")
	case o.clients < 1 || o.clients > 256 || o.readers < 0 || o.readers > 64:
		return o, errors.New("--clients must be from 1 to 256, --readers from 0 to 64")
	case o.duration <= 0 || o.duration > 10*time.Minute || o.rounds < 1 || o.rounds > 50:
		return o, errors.New("--duration must be positive, at most 10m; --rounds from 1 to 50")
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
	cfg.ReplicaURL, cfg.WriteTimeout = ru.String(), 0
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
	alone, onReplica, onPrimary := &sample{name: "creates alone"}, &sample{name: "creates + reads on replica"}, &sample{name: "creates + reads on primary"}
	var replicaReads, primaryReads readCounts
	round := o.duration / time.Duration(o.rounds)
	rps := make([][]float64, 3) // per round: alone, reads on the replica, reads on the primary
	phases := []func() error{
		func() error { b.run(alone, round, b.postPayment); return nil },
		func() error {
			return b.withReads(&replicaReads, o.readers, period, func() { b.run(onReplica, round, b.postPayment) })
		},
		func() error {
			a.Replica().Stop() // reads on the primary
			err := b.withReads(&primaryReads, o.readers, period, func() { b.run(onPrimary, round, b.postPayment) })
			a.Replica().Start(ctx)
			if err != nil {
				return err
			}
			return awaitReplica(a, time.Minute)
		},
	}
	samples := []*sample{alone, onReplica, onPrimary}
	for r := range o.rounds {
		for k := range phases { // the order turns each round: a drift of the machine's load hits each phase alike
			p := (r + k) % len(phases)
			n, e := len(samples[p].lat), samples[p].elapsed
			if err := phases[p](); err != nil {
				return err
			}
			rps[p] = append(rps[p], float64(len(samples[p].lat)-n)/(samples[p].elapsed-e).Seconds())
		}
	}
	fmt.Printf("\n%-28s %10s %10s %10s %8s %8s\n", "phase", "req/s", "p50", "p99", "errors", "ratio")
	ref, rep, pri := alone.result(), onReplica.result(), onPrimary.result()
	for _, r := range []struct {
		r   result
		ref *result
	}{{ref, nil}, {rep, &ref}, {pri, &ref}} {
		ratio := ""
		if r.ref != nil {
			ratio = fmt.Sprintf("%.2f", r.r.rps()/max(r.ref.rps(), 1e-9))
		}
		fmt.Printf("%-28s %10.0f %10s %10s %8d %8s\n", r.r.name, r.r.rps(), r.r.p50.Round(time.Microsecond), r.r.p99.Round(time.Microsecond), r.r.errors, ratio)
	}
	fmt.Printf("ratios round by round (the same round's creates alone as reference): with reads on the replica %s (median %.2f); on the primary %s (median %.2f)\n",
		joinRatios(pairRatios(rps[1], rps[0])), median(pairRatios(rps[1], rps[0])), joinRatios(pairRatios(rps[2], rps[0])), median(pairRatios(rps[2], rps[0])))
	fmt.Printf("reads beside them, replica: %s; primary: %s\n", replicaReads.describe(o.payments), primaryReads.describe(o.payments))
	fmt.Printf("reads meant for the replica read on the primary: %d\n", a.Store().ReplicaFallbacks())
	if n := ref.errors + rep.errors + pri.errors; n > 0 {
		return fmt.Errorf("%d creates failed", n)
	}
	return nil
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
// pages by number, and filtered first pages); it waits for the report in
// progress to end before it returns.
func (b *bench) withReads(c *readCounts, readers int, period []byte, phase func()) error {
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
			for i := r; !stop.Load(); i++ {
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
