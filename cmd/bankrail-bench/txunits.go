package main

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// txCounts are the store's committed transactions and the units of work
// they carried, summed over every pass (bankrail_store_transaction_units),
// and the units of groups run again alone because they lost to another
// transaction or their group failed (bankrail_store_units_run_again_total).
type txCounts struct{ units, txs, lost, failed, cpu float64 }

// readTxCounts scrapes them from the server's GET /metrics at addr.
func readTxCounts(addr string) (txCounts, error) {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return txCounts{}, fmt.Errorf("read /metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return txCounts{}, fmt.Errorf("read /metrics: %s", resp.Status)
	}
	var c txCounts
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		var into *float64
		switch {
		case strings.HasPrefix(line, "bankrail_store_transaction_units_sum{"):
			into = &c.units
		case strings.HasPrefix(line, "bankrail_store_transaction_units_count{"):
			into = &c.txs
		case strings.HasPrefix(line, "bankrail_store_transaction_cpu_seconds_total{"):
			into = &c.cpu
		case strings.HasPrefix(line, `bankrail_store_units_run_again_total{why="lost_to_another"}`):
			into = &c.lost
		case strings.HasPrefix(line, `bankrail_store_units_run_again_total{why="group_failed"}`):
			into = &c.failed
		default:
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			return txCounts{}, fmt.Errorf("read /metrics: %q: %w", line, err)
		}
		*into += v
	}
	return c, sc.Err()
}

// unitsPerTx is the mean units per transaction committed between before and
// after, 0 when none was.
func unitsPerTx(before, after txCounts) float64 {
	if after.txs <= before.txs {
		return 0
	}
	return (after.units - before.units) / (after.txs - before.txs)
}

// writerCPU is the CPU time the store's writers spent in its committed
// transactions of units of work between before and after
// (bankrail_store_transaction_cpu_seconds_total): on SQLite, whose one
// writer runs them in this process, the engine's work and the units'.
func writerCPU(before, after txCounts) float64 { return after.cpu - before.cpu }

// formatUnits shows a phase's median units per transaction ("-" for none).
func formatUnits(v float64) string {
	if v == 0 {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}
