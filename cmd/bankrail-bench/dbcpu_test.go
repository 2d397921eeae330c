package main

import (
	"testing"
	"time"
)

func TestStatCPU(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		stat string
		want time.Duration
		ok   bool
	}{
		{"postgres backend", "4242 (postgres) S 1 4242 4242 0 -1 4194560 300 0 0 0 250 13 0 0 20 0 1 0 100 0 0", 2630 * time.Millisecond, true},
		{"command with spaces and parentheses", "7 (a) b (c)) R 1 7 7 0 -1 0 0 0 0 0 100 50 0 0", 1500 * time.Millisecond, true},
		{"no command", "7 R 1 7 7 0 -1 0 0 0 0 0 100 50", 0, false},
		{"cut short", "7 (x) R 1 7 7 0 -1 0 0 0 0 0 100", 0, false},
		{"not a number", "7 (x) R 1 7 7 0 -1 0 0 0 0 0 1x0 50 0 0", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := statCPU(tt.stat)
			if got != tt.want || ok != tt.ok {
				t.Fatalf("statCPU = %s, %v; want %s, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestCPUSince(t *testing.T) {
	t.Parallel()
	before := map[int]time.Duration{1: time.Second, 2: 2 * time.Second}
	after := map[int]time.Duration{1: 3 * time.Second, 3: 500 * time.Millisecond} // 2 ended, 3 started
	if got := cpuSince(before, after); got != 2500*time.Millisecond {
		t.Fatalf("cpuSince = %s, want 2.5s", got)
	}
}

// TestDatabaseCPULine: the backends' CPU per request is given per phase
// (median over rounds) on PostgreSQL, without the bare server, and not at
// all on SQLite (no phase measured it).
func TestDatabaseCPULine(t *testing.T) {
	t.Parallel()
	pg := []*phaseResult{{name: "bare", dbReq: []float64{1}}, {name: "read", dbReq: []float64{40, 30, 50}}, {name: "create", dbReq: []float64{200}}}
	if got, want := databaseCPULine(pg), "database backends' CPU per request (PostgreSQL, median over rounds): read 40µs, create 200µs"; got != want {
		t.Errorf("PostgreSQL: %q, want %q", got, want)
	}
	if got := databaseCPULine([]*phaseResult{{name: "bare"}, {name: "read"}}); got != "" {
		t.Errorf("SQLite: %q, want nothing", got)
	}
}
