package main

// The targets table of issue 31, written by load --write from the run's
// own figures (never typed in): each row is an item, its target, what this
// run measured and whether that meets it.

import (
	"fmt"
	"strings"
	"time"
)

// Issue 31's bounds.
const (
	keyedBareTarget  = 0.10        // keyed creates ÷ bare, both engines
	keyedShareTarget = 0.9         // keyed ÷ unkeyed, both engines
	pgReadTarget     = 1.5 * 0.110 // PostgreSQL reads ÷ bare: 1.5x the 0.110 of the issue
)

// targetRow is one row of the table.
type targetRow struct{ item, target, figure, met string }

// yesNo is a met? cell.
func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

// targetRows are the rows this run can fill.
func targetRows(results []engineResult) []targetRow {
	var rows []targetRow
	byEngine := map[string]map[string]*phaseResult{}
	for _, r := range results {
		m := map[string]*phaseResult{}
		for _, p := range r.phases {
			m[p.name] = p
		}
		byEngine[r.engine] = m
	}
	for _, r := range results {
		ph := byEngine[r.engine]
		if k := ph["create-key"]; k != nil {
			v := median(k.ratio)
			rows = append(rows, targetRow{"1", fmt.Sprintf("%s: keyed POST /payments ÷ bare ≥ %.2f", r.engine, keyedBareTarget),
				fmt.Sprintf("%.3f", v), yesNo(v >= keyedBareTarget)})
			if c := ph["create"]; c != nil {
				s := median(pairRatios(k.rps, c.rps))
				rows = append(rows, targetRow{"1", fmt.Sprintf("%s: keyed ≥ %.1f × unkeyed", r.engine, keyedShareTarget),
					fmt.Sprintf("%.2f (unkeyed %.3f ÷ bare)", s, median(c.ratio)), yesNo(s >= keyedShareTarget)})
			}
		}
		if g := ph["read"]; g != nil && r.engine == "PostgreSQL" {
			v := median(g.ratio)
			rows = append(rows, targetRow{"2", fmt.Sprintf("PostgreSQL: GET /payments/{id} ÷ bare ≥ 1.5 × 0.110 = %.3f", pgReadTarget),
				fmt.Sprintf("%.3f (%.2f × 0.110)", v, v/0.110), yesNo(v >= pgReadTarget)})
		}
		if f := ph["floor"]; f != nil && r.engine == "SQLite" {
			var parts []string
			for _, name := range []string{"create", "create-key"} {
				if p := ph[name]; p != nil && median(p.writer) > 0 {
					parts = append(parts, fmt.Sprintf("%s %.0f per writer CPU-s = %.2f of it", name, median(p.writer), median(p.writer)/median(f.writer)))
				}
			}
			rows = append(rows, targetRow{"3", "SQLite: creates per CPU second of the writer beside a plain INSERT of the same row (the floor), reported",
				fmt.Sprintf("floor %.0f rows per CPU-s (%.0f a transaction); %s", median(f.writer), median(f.units), strings.Join(parts, "; ")),
				yesNo(len(parts) > 0)})
		}
	}
	rows = append(rows, targetRow{"3", "SQLite: no regression on any phase (old build beside new)",
		"not judged by one run of the tool: run the old build's `load` beside this one (docs/performance.md, issue 31)", "-"})
	rows = append(rows, targetRow{"4", "the rails and the connector's lifecycle in the tool",
		"`bankrail-bench statements`, `transfers`, and the lifecycle pair of the default command; not part of `load`", "-"})
	for _, r := range results {
		s := r.soak
		if s == nil {
			continue
		}
		rows = append(rows,
			targetRow{"5", fmt.Sprintf("%s soak (%s at %.0f%% of capacity): p99 < %s", r.engine, s.duration, 100*s.rate/max(s.capacity, 1e-9), soakP99Target),
				s.p99.String(), yesNo(s.p99 < soakP99Target)},
			targetRow{"5", fmt.Sprintf("%s soak: RSS flat after the first %s", r.engine, s.rss.from.Round(time.Second)),
				s.rss.String(), yesNo(s.rss.enough && s.rss.flat)},
			targetRow{"5", fmt.Sprintf("%s soak: no error", r.engine), fmt.Sprintf("%d of %d", s.errors, s.total), yesNo(s.errors == 0)})
	}
	return rows
}

// writeTargets writes the targets section of o.write.
func writeTargets(o loadOptions, results []engineResult) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### Targets of issue 31 (last run of `bankrail-bench load`)\n\n")
	fmt.Fprintf(&b, "- Command: `%s`\n", commandLine(append([]string{"load"}, o.args...)))
	fmt.Fprintf(&b, "- Date: %s; every figure from that run (ratios are medians over its rounds; the load section above has the rest)\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&b, "| item | target | figure | met? |\n|---|---|---|---|\n")
	for _, r := range targetRows(results) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.item, r.target, r.figure, r.met)
	}
	return updateSection(o.write, "targets", b.String())
}

// writeSoak writes the soak section of o.write.
func writeSoak(o loadOptions, results []engineResult) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### Soak (last run of `bankrail-bench load` with the soak phase)\n\n")
	fmt.Fprintf(&b, "- Command: `%s`\n", commandLine(append([]string{"load"}, o.args...)))
	fmt.Fprintf(&b, "- Date: %s\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&b, "- The mix, ten operations a cycle over %d connections: five reads, three creates (one left NEW, one RECEIVED at once, one expected for a payin), "+
		"a payin and a refund each one in ten; every payment's notifications go to a receiver that answers each after --soak-receiver-delay. "+
		"Its capacity is measured at full load first (calibration: a tenth of the soak, 1-60 s; the rate of its last third, when the notifications it caused are being delivered beside it); then it runs paced at --soak-load of it, each latency counted from when its request was due. "+
		"RSS is this process's (server and load generator; the generator keeps a fixed-size histogram, no per-request memory), sampled through the run; "+
		"flat: the least-squares slope of the samples after the warm-up (the first minute, or a fifth of a shorter run) times that stretch's length stays under %.0f MB or %.0f %% of the RSS when it began, whichever is larger.\n\n",
		o.connections, flatBoundMB, 100*flatBoundShare)
	fmt.Fprintf(&b, "| engine | capacity | paced | operations | p50 | p99 | errors | RSS | notifications | machine load | met? |\n|---|---:|---:|---|---:|---:|---:|---|---|---|---|\n")
	for _, r := range results {
		s := r.soak
		if s == nil {
			continue
		}
		fmt.Fprintf(&b, "| %s | %.0f op/s | %.0f op/s for %s | %d (%s); %d started over 1 s late | %s | %s | %d | %s | %d answered (%s each); at the end %s | %s → %s | %s |\n",
			r.engine, s.capacity, s.rate, s.duration, s.total, formatCounts(s.ops), s.late, s.p50, s.p99, s.errors, s.rss, s.notified, s.receiverDelay,
			formatCounts(s.notifications), s.loadAvg[0], s.loadAvg[1], yesNo(s.met()))
	}
	return updateSection(o.write, "soak", b.String())
}
