package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// listUsage explains the list subcommand.
const listUsage = `bankrail-bench list [--sizes 1000,1000000] [--database-url URL] [--engines sqlite,postgres]
    [--time 3s] [--write FILE]
    on a fresh database of each engine: seeds payments up to each size in turn (seed.go), then
    measures one GET /payments at a time (PostgreSQL: after ANALYZE and VACUUM, as autovacuum would): page 1, page 1 filtered by currency, page 40 by page
    number and page 40 by cursor (followed from page 1); each for --time. Prints the median
    latency and its ratio to the smallest size's. --write updates the list section of a
    Markdown file (docs/performance.md).`

type listOptions struct {
	sizes       []int
	databaseURL string
	engines     []string
	time        time.Duration
	write       string
	args        []string
}

func parseListFlags(args []string) (listOptions, error) {
	o := listOptions{args: args}
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprintln(fs.Output(), listUsage) }
	var sizes, engines string
	fs.StringVar(&sizes, "sizes", "1000,1000000", "numbers of payments, ascending")
	fs.StringVar(&o.databaseURL, "database-url", "", "postgres://... for PostgreSQL (a fresh schema is created and dropped)")
	fs.StringVar(&engines, "engines", "", "engines: sqlite, postgres (default: sqlite, and postgres with --database-url)")
	fs.DurationVar(&o.time, "time", 3*time.Second, "how long each request is repeated")
	fs.StringVar(&o.write, "write", "", "update the list section of this Markdown file")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 20_000_000 || (len(o.sizes) > 0 && n <= o.sizes[len(o.sizes)-1]) {
			return o, errors.New("--sizes must be ascending numbers from 1 to 20000000")
		}
		o.sizes = append(o.sizes, n)
	}
	if engines == "" {
		engines = "sqlite"
		if o.databaseURL != "" {
			engines += ",postgres"
		}
	}
	for _, e := range strings.Split(engines, ",") {
		if e = strings.TrimSpace(e); e != "sqlite" && (e != "postgres" || o.databaseURL == "") {
			return o, fmt.Errorf("unknown engine %q (postgres needs --database-url)", e)
		}
		o.engines = append(o.engines, e)
	}
	if o.time <= 0 || o.time > time.Minute {
		return o, errors.New("--time must be positive, at most 1m")
	}
	return o, nil
}

// listCase is one request measured at every size.
type listCase struct {
	name string
	path func(d *listDriver) (string, error)
}

var listCases = []listCase{
	{"page 1", func(*listDriver) (string, error) { return "/payments", nil }},
	{"page 1, currency=EUR", func(*listDriver) (string, error) { return "/payments?currency=EUR", nil }},
	{"page 40 by page=", func(*listDriver) (string, error) { return "/payments?page=40", nil }},
	{"page 40 by cursor", func(d *listDriver) (string, error) { return d.cursorPage(40) }},
}

// listRow is one engine and size: the median latency of each case.
type listRow struct {
	engine, version string
	size            int
	p50             []time.Duration // by listCases; 0 when not measured
	total           string          // total-items of page 1
}

func runList(args []string) error {
	o, err := parseListFlags(args)
	if err != nil {
		return err
	}
	ctx := context.Background()
	var rows []listRow
	for _, engine := range o.engines {
		dbURL := ""
		if engine == "postgres" {
			dbURL = o.databaseURL
		}
		r, err := listEngine(ctx, o, dbURL)
		if err != nil {
			return fmt.Errorf("%s: %w", engine, err)
		}
		rows = append(rows, r...)
	}
	if o.write != "" {
		if err := writeListSection(o, rows); err != nil {
			return err
		}
		fmt.Printf("\nwrote the list section of %s\n", o.write)
	}
	return nil
}

func listEngine(ctx context.Context, o listOptions, databaseURL string) ([]listRow, error) {
	cfg, cleanup, err := benchConfig(ctx, databaseURL)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	cfg.WriteTimeout = 0 // a list before this issue took minutes at a million payments
	a, err := startBench(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer shutdown(a)
	engine, version := "SQLite", engineVersion(ctx, a, false)
	if cfg.UsesPostgres() {
		engine, version = "PostgreSQL", engineVersion(ctx, a, true)
	}
	b := newBench(options{clients: 1}, "http://"+a.Addr(), "")
	if err := b.login(); err != nil {
		return nil, err
	}
	d := &listDriver{addr: a.Addr(), token: b.token}
	var rows []listRow
	have := 0
	for _, size := range o.sizes {
		start := time.Now()
		if err := seedPayments(ctx, a, size-have, time.Now(), cfg.UsesPostgres()); err != nil {
			return nil, err
		}
		have = size + 1 // seedPayments makes a template payment through the API besides
		if err := analyze(ctx, a, cfg.UsesPostgres()); err != nil {
			return nil, err
		}
		if cfg.UsesPostgres() { // as autovacuum would have by then: index-only scans need the visibility map
			write, _ := a.Store().Pools()
			if _, err := write.ExecContext(ctx, "VACUUM payments"); err != nil {
				return nil, err
			}
		}
		fmt.Printf("%s: %d payments (seeded in %s)\n", engine, size, time.Since(start).Round(time.Millisecond))
		d.close() // idle while seeding: the server may have closed it
		row := listRow{engine: engine, version: version, size: size}
		for _, c := range listCases {
			path, err := c.path(d)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.name, err)
			}
			if path == "" {
				fmt.Printf("  %-22s not available\n", c.name)
				row.p50 = append(row.p50, 0)
				continue
			}
			lat, hdr, err := d.repeat(path, o.time)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.name, err)
			}
			p50, p90 := lat[len(lat)/2], lat[len(lat)*9/10]
			row.p50 = append(row.p50, p50)
			if c.name == "page 1" {
				row.total = hdr.total
			}
			fmt.Printf("  %-22s p50 %10s  p90 %10s  (%d requests; total-items %s)\n", c.name, p50.Round(time.Microsecond),
				p90.Round(time.Microsecond), len(lat), hdr.total)
		}
		rows = append(rows, row)
	}
	base := rows[0]
	for _, r := range rows[1:] {
		fmt.Printf("%s %d ÷ %d:", engine, r.size, base.size)
		for i, c := range listCases {
			if r.p50[i] > 0 && base.p50[i] > 0 {
				fmt.Printf("  %s %.2f", c.name, float64(r.p50[i])/float64(base.p50[i]))
			}
		}
		fmt.Println()
	}
	return rows, nil
}

// listDriver sends list requests on one connection.
type listDriver struct {
	addr, token string
	conn        *rawConn
}

func (d *listDriver) close() {
	if d.conn != nil {
		d.conn.Close()
		d.conn = nil
	}
}

// listHeaders are the paging headers of an answer.
type listHeaders struct{ total, next string }

// get sends one GET and returns its paging headers.
func (d *listDriver) get(path string) (listHeaders, error) {
	if d.conn == nil {
		c, err := dialRaw(d.addr)
		if err != nil {
			return listHeaders{}, err
		}
		d.conn = c
	}
	status, _, hdr, err := d.conn.doHeaders(rawRequest(d.addr, "GET", path, nil, "Authorization", "Bearer "+d.token),
		time.Now().Add(time.Minute), "total-items", "next-cursor")
	if err == nil && status != 200 {
		err = fmt.Errorf("GET %s: status %d", path, status)
	}
	if err != nil {
		d.conn.Close()
		d.conn = nil
		return listHeaders{}, err
	}
	return listHeaders{total: hdr[0], next: hdr[1]}, nil
}

// repeat sends path one at a time for d and returns the sorted latencies.
func (d *listDriver) repeat(path string, dur time.Duration) ([]time.Duration, listHeaders, error) {
	var lat []time.Duration
	var hdr listHeaders
	end := time.Now().Add(dur)
	for len(lat) < 3 || time.Now().Before(end) {
		t := time.Now()
		h, err := d.get(path)
		if err != nil {
			return nil, hdr, err
		}
		lat = append(lat, time.Since(t))
		hdr = h
	}
	slices.Sort(lat)
	return lat, hdr, nil
}

// cursorPage follows next-cursor from page 1 to page n and returns its
// path; empty when the server gives no cursor.
func (d *listDriver) cursorPage(n int) (string, error) {
	path := "/payments"
	for range n - 1 {
		h, err := d.get(path)
		if err != nil {
			return "", err
		}
		if h.next == "" {
			return "", nil
		}
		path = "/payments?cursor=" + url.QueryEscape(h.next)
	}
	return path, nil
}

// writeListSection writes the list section of o.write.
func writeListSection(o listOptions, rows []listRow) error {
	var versions []string
	for _, r := range rows {
		if !slices.Contains(versions, r.version) {
			versions = append(versions, r.version)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### Lists at scale (last run of `bankrail-bench list`)\n\n")
	fmt.Fprintf(&b, "- Command: `%s`\n", commandLine(append([]string{"list"}, o.args...)))
	fmt.Fprintf(&b, "- Date: %s\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&b, "- Machine: %s\n", machine(versions...))
	fmt.Fprintf(&b, "- One request at a time, each repeated for %s; median latency, and its ratio to the same request at %d payments\n\n", o.time, o.sizes[0])
	fmt.Fprintf(&b, "| engine | payments | total-items |")
	for _, c := range listCases {
		fmt.Fprintf(&b, " %s |", c.name)
	}
	fmt.Fprintf(&b, "\n|---|---:|---:|%s\n", strings.Repeat("---:|", len(listCases)))
	bases := map[string]listRow{}
	for _, r := range rows {
		base, ok := bases[r.engine]
		if !ok {
			bases[r.engine], base = r, r
		}
		fmt.Fprintf(&b, "| %s | %d | %s |", r.engine, r.size, r.total)
		for i := range listCases {
			switch {
			case r.p50[i] == 0:
				fmt.Fprintf(&b, " n/a |")
			case r.size == base.size || base.p50[i] == 0:
				fmt.Fprintf(&b, " %s |", r.p50[i].Round(time.Microsecond))
			default:
				fmt.Fprintf(&b, " %s (%.2fx) |", r.p50[i].Round(time.Microsecond), float64(r.p50[i])/float64(base.p50[i]))
			}
		}
		fmt.Fprintln(&b)
	}
	return updateSection(o.write, "list", b.String())
}
