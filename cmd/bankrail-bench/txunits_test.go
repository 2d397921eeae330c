package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestReadTxCountsSumsEveryPass(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`# HELP bankrail_store_transaction_units Units of work per committed transaction.
# TYPE bankrail_store_transaction_units histogram
bankrail_store_transaction_units_bucket{pass="alone",le="1"} 7
bankrail_store_transaction_units_sum{pass="alone"} 7
bankrail_store_transaction_units_count{pass="alone"} 7
bankrail_store_transaction_units_sum{pass="together"} 93
bankrail_store_transaction_units_count{pass="together"} 13
bankrail_store_transaction_seconds_sum{pass="together"} 0.5
bankrail_store_transaction_cpu_seconds_total{pass="alone"} 0.25
bankrail_store_transaction_cpu_seconds_total{pass="together"} 0.125
bankrail_http_requests_total{code="200",method="GET",route="/metrics"} 3
bankrail_store_units_run_again_total{why="group_failed"} 2
bankrail_store_units_run_again_total{why="lost_to_another"} 5
`))
	}))
	defer srv.Close()
	before, err := readTxCounts(strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	if before != (txCounts{units: 100, txs: 20, lost: 5, failed: 2, cpu: 0.375}) {
		t.Fatalf("read %+v; want 100 units in 20 transactions, 5 run again lost to another, 2 their group failed, 0.375 s of the writer's CPU", before)
	}
	if got := writerCPU(before, txCounts{cpu: 1.375}); got != 1 {
		t.Errorf("writerCPU = %v, want 1", got)
	}
	after := txCounts{units: 190, txs: 40}
	if got := unitsPerTx(before, after); got != 4.5 {
		t.Errorf("unitsPerTx = %v, want 4.5", got)
	}
	if got := unitsPerTx(before, before); got != 0 {
		t.Errorf("unitsPerTx with nothing committed = %v, want 0", got)
	}
	if formatUnits(0) != "-" || formatUnits(4.54) != "4.5" {
		t.Errorf("formatUnits: %q, %q", formatUnits(0), formatUnits(4.54))
	}
}
