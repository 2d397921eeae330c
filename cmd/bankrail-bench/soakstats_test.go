package main

import (
	"strings"
	"testing"
	"time"
)

func TestLatHistQuantiles(t *testing.T) {
	t.Parallel()
	var h latHist
	if h.quantile(0.99) != 0 {
		t.Fatal("an empty histogram has no quantile")
	}
	for i := 1; i <= 1000; i++ { // 1 ms .. 1000 ms
		h.add(time.Duration(i) * time.Millisecond)
	}
	h.add(time.Microsecond) // under the first bucket
	for _, tt := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Millisecond}, {0.99, 990 * time.Millisecond}, {1, 1000 * time.Millisecond}} {
		got := h.quantile(tt.q)
		if got < tt.want || float64(got) > 1.0101*float64(tt.want) {
			t.Errorf("quantile(%v) = %s, want %s within 1 %% above", tt.q, got, tt.want)
		}
	}
}

func TestRSSTrend(t *testing.T) {
	t.Parallel()
	samples := func(f func(minute float64) int64) []rssSample {
		var s []rssSample
		for i := 0; i <= 100; i++ {
			at := time.Duration(i) * 6 * time.Second // ten minutes
			s = append(s, rssSample{at: at, rss: f(at.Minutes())})
		}
		return s
	}
	tests := []struct {
		name       string
		samples    []rssSample
		flat, okay bool
		slope      float64 // MB/min
	}{
		{"flat with a sawtooth", samples(func(m float64) int64 { return 60_000 + int64(m*1000)%2000 }), true, true, 0},
		{"growth in the first minute only", samples(func(m float64) int64 { return 40_000 + int64(min(m, 1)*20_000) }), true, true, 0},
		{"a leak of 1 MB a minute", samples(func(m float64) int64 { return 60_000 + int64(m*1000) }), false, true, 1},
		{"too short to judge", []rssSample{{0, 50_000}, {time.Second, 50_000}}, false, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := trend(tt.samples, time.Minute)
			if got.flat != tt.flat || got.enough != tt.okay {
				t.Fatalf("trend: flat %v enough %v, want %v %v (%s)", got.flat, got.enough, tt.flat, tt.okay, got)
			}
			if tt.okay && (got.slopePerMin < tt.slope-0.3 || got.slopePerMin > tt.slope+0.3) {
				t.Fatalf("slope %.2f MB/min, want about %.1f", got.slopePerMin, tt.slope)
			}
			if tt.okay && !tt.flat && !strings.HasPrefix(got.String(), "GROWING") {
				t.Fatalf("a growing RSS reads %q", got)
			}
		})
	}
}

func TestTargetRowsComeFromTheRun(t *testing.T) {
	t.Parallel()
	phase := func(name string, rps, ratio, writer float64) *phaseResult {
		return &phaseResult{name: name, rps: []float64{rps}, ratio: []float64{ratio}, writer: []float64{writer}, units: []float64{4}}
	}
	results := []engineResult{
		{engine: "SQLite", phases: []*phaseResult{phase("bare", 100000, 1, 0), phase("create", 8000, 0.08, 4000),
			phase("create-key", 7600, 0.076, 3000), phase("floor", 20000, 0.2, 10000)},
			soak: &soakResult{duration: time.Minute, capacity: 1000, rate: 500, p99: 20 * time.Millisecond, total: 30000,
				rss: rssTrend{enough: true, flat: true}}},
		{engine: "PostgreSQL", phases: []*phaseResult{phase("bare", 100000, 1, 0), phase("create-key", 11000, 0.11, 0),
			phase("create", 12000, 0.12, 0), phase("read", 17000, 0.17, 0)},
			soak: &soakResult{duration: time.Minute, p99: 60 * time.Millisecond, errors: 1, rss: rssTrend{enough: true}}},
	}
	got := map[string]string{}
	for _, r := range targetRows(results) {
		got[r.target] = r.figure + " | " + r.met
	}
	for target, want := range map[string]string{
		"SQLite: keyed POST /payments ÷ bare ≥ 0.10":                  "0.076 | **no**",
		"SQLite: keyed ≥ 0.9 × unkeyed":                               "0.95 (unkeyed 0.080 ÷ bare) | yes",
		"PostgreSQL: keyed POST /payments ÷ bare ≥ 0.10":              "0.110 | yes",
		"PostgreSQL: keyed ≥ 0.9 × unkeyed":                           "0.92 (unkeyed 0.120 ÷ bare) | yes",
		"PostgreSQL: GET /payments/{id} ÷ bare ≥ 1.5 × 0.110 = 0.165": "0.170 (1.55 × 0.110) | yes",
		"PostgreSQL soak: no error":                                   "1 of 0 | **no**",
		"SQLite soak (1m0s at 50% of capacity): p99 < 50ms":           "20ms | yes",
	} {
		if got[target] != want {
			t.Errorf("%s: %q, want %q", target, got[target], want)
		}
	}
	if !strings.Contains(got["SQLite: creates per CPU second of the writer beside a plain INSERT of the same row (the floor), reported"], "create-key 3000 per writer CPU-s = 0.30 of it") {
		t.Errorf("the floor row: %q", got)
	}
	if !strings.HasSuffix(got["PostgreSQL soak: RSS flat after the first 0s"], "**no**") {
		t.Errorf("a soak whose RSS is not flat met the target: %q", got["PostgreSQL soak: RSS flat after the first 0s"])
	}
}
