package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// performanceHeader starts docs/performance.md when it does not exist yet.
const performanceHeader = `# Performance

Figures measured with ` + "`cmd/bankrail-bench`" + `. The sections between the
` + "`bankrail-bench`" + ` markers are written by the tool (` + "`--write`" + `); the rest is kept as it is.
`

// updateSection replaces the section name of the Markdown file at path (the
// lines between its begin and end markers) with body, or appends it.
func updateSection(path, name, body string) error {
	begin := fmt.Sprintf("<!-- bankrail-bench %s: begin (written by the tool; edits here are replaced) -->", name)
	end := fmt.Sprintf("<!-- bankrail-bench %s: end -->", name)
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	doc := string(old)
	if doc == "" {
		doc = performanceHeader
	}
	section := begin + "\n" + strings.TrimRight(body, "\n") + "\n" + end
	i := strings.Index(doc, begin)
	j := strings.Index(doc, end)
	if i >= 0 && j > i {
		doc = doc[:i] + section + doc[j+len(end):]
	} else {
		doc = strings.TrimRight(doc, "\n") + "\n\n" + section + "\n"
	}
	return os.WriteFile(path, []byte(doc), 0o644)
}

// machine describes where the figures were measured.
func machine(versions ...string) string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	kernel := runtime.GOOS
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel += " " + strings.TrimSpace(string(b))
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			mem = fmt.Sprintf(", %.0f GB RAM", float64(kb)/1e6)
		}
	}
	s := fmt.Sprintf("%s, %d cores (GOMAXPROCS %d)%s, %s, %s", cpu, runtime.NumCPU(), runtime.GOMAXPROCS(0), mem, kernel, runtime.Version())
	for _, v := range versions {
		s += "; " + v
	}
	return s + "; server, database and load generator on the same machine"
}

// commandLine is how this process was started, for the record.
func commandLine(args []string) string {
	return "go run ./cmd/bankrail-bench " + strings.Join(redactURLs(args), " ")
}

// redactURLs hides passwords in database URLs.
func redactURLs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if at := strings.Index(a, "@"); at > 0 && strings.Contains(a, "://") {
			scheme, rest, _ := strings.Cut(a, "://")
			if user, _, ok := strings.Cut(rest[:strings.Index(rest, "@")], ":"); ok {
				a = scheme + "://" + user + ":...@" + a[at+1:]
			}
		}
		out[i] = a
	}
	return out
}

// writePerformance writes the load section of o.write.
func writePerformance(o loadOptions, results []engineResult) error {
	var versions []string
	for _, r := range results {
		versions = append(versions, r.version)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### Concurrent connections (last run of `bankrail-bench load`)\n\n")
	fmt.Fprintf(&b, "- Command: `%s`\n", commandLine(append([]string{"load"}, o.args...)))
	fmt.Fprintf(&b, "- Date: %s\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&b, "- Machine: %s\n", machine(versions...))
	fmt.Fprintf(&b, "- %d connections, %s per phase, %d rounds; **÷ bare** is the median over rounds of the phase's rate over the bare server's rate in the same round; "+
		"*cores* is this process's CPU time over the phase's time (server and load generator; PostgreSQL's own processes not included); "+
		"*CPU/req* is this process's CPU per request; "+
		"*÷ bare per CPU* compares requests per CPU second of this process the same way (less sensitive to other load on the machine, blind to PostgreSQL's CPU); "+
		"*units/tx* is the median over rounds of the units of work (each request's writes) per transaction the store committed during the phase (group commit; `bankrail_store_transaction_units`), - where it committed none; "+
		"*per writer CPU-s* is requests per CPU second of the store's writer in those transactions, BEGIN to COMMIT done (`bankrail_store_transaction_cpu_seconds_total`: the goroutine that runs a group is locked to its thread, whose CPU clock is read; on SQLite the engine's work is all in it; - on PostgreSQL, whose writer waits on the network and is not locked to a thread), "+
		"and for the *floor* phase the payment row of a create INSERTed plainly on the same writer pool from one thread, as many to a transaction as the keyed creates had: rows per CPU second of that thread\n\n",
		o.connections, o.duration, o.rounds)
	fmt.Fprintf(&b, "| engine | phase | req/s (median) | **÷ bare** (median) | ÷ bare per round | cores | CPU/req | ÷ bare per CPU | units/tx | per writer CPU-s | p50 | p99 | errors |\n")
	fmt.Fprintf(&b, "|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		for _, p := range r.phases {
			p50, p99 := percentiles(p.lat)
			fmt.Fprintf(&b, "| %s | %s | %.0f | **%.3f** | %s | %.2f | %.0f µs | %.3f | %s | %s | %s | %s | %d |\n", r.engine, phaseLabel(p.name), median(p.rps),
				median(p.ratio), joinRatios(p.ratio), median(p.cores), median(p.cpuReq), median(p.cpu), formatUnits(median(p.units)), formatWriter(median(p.writer)), p50, p99, p.errors)
		}
	}
	for _, r := range results {
		byName := map[string]*phaseResult{}
		for _, p := range r.phases {
			byName[p.name] = p
		}
		if gap := floorGap(byName); gap != "" {
			fmt.Fprintf(&b, "\n%s: %s.\n", r.engine, gap)
		}
		for _, p := range r.phases {
			if p.name == "read" && r.line.buffered > 0 {
				fmt.Fprintf(&b, "\n%s: one access log line at INFO costs %s of CPU buffered as `bankrail serve` writes it (%s of a GET /payments/{id}'s %.0f µs), %s with one write per line (%s); %d lines written in a loop, this process's CPU time.\n",
					r.engine, r.line.buffered, lineShare(r.line.buffered, median(p.cpuReq)), median(p.cpuReq), r.line.direct, lineShare(r.line.direct, median(p.cpuReq)), logLines)
			}
		}
	}
	return updateSection(o.write, "load", b.String())
}

// phaseLabel names a phase in the document.
func phaseLabel(name string) string {
	switch name {
	case "bare":
		return "bare net/http, fixed JSON"
	case "create":
		return "POST /payments, no key"
	case "create-key":
		return "POST /payments, Idempotency-Key"
	case "read":
		return "GET /payments/{id}"
	case "list":
		return "GET /payments (page 1)"
	case "create-log":
		return "POST /payments, no key, access log at INFO"
	case "read-log":
		return "GET /payments/{id}, access log at INFO"
	case "floor":
		return "floor: the payment row, plain INSERT (rows)"
	}
	return name
}
