package main

// Medians, percentiles and ratios of the measurements.

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// pairRatios are a[i]/b[i], round by round.
func pairRatios(a, b []float64) []float64 {
	out := make([]float64, min(len(a), len(b)))
	for i := range out {
		out[i] = a[i] / max(b[i], 1e-12)
	}
	return out
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func percentiles(lat []time.Duration) (p50, p99 time.Duration) {
	if len(lat) == 0 {
		return 0, 0
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	return s[len(s)/2].Round(time.Microsecond), s[len(s)*99/100].Round(time.Microsecond)
}

func joinRatios(v []float64) string {
	parts := make([]string, len(v))
	for i, r := range v {
		parts[i] = fmt.Sprintf("%.3f", r)
	}
	return strings.Join(parts, " ")
}
