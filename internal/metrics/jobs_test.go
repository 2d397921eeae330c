package metrics

import (
	"context"
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// gather reads reg into "name{kind}" -> value.
func gather(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			kind := ""
			for _, l := range m.GetLabel() {
				if l.GetName() == "kind" {
					kind = l.GetValue()
				}
			}
			out[f.GetName()+"{"+kind+"}"] = m.GetGauge().GetValue() + m.GetCounter().GetValue()
		}
	}
	return out
}

// The dead-jobs gauge is read from the database at each scrape and is 0 for
// the kinds without dead jobs; the counter counts what this instance
// declared dead; a database that does not answer leaves the gauge out
// rather than reporting 0.
func TestJobMetrics(t *testing.T) {
	t.Parallel()
	var fail error
	reg := prometheus.NewRegistry()
	m := NewJobs(reg, func(context.Context) (map[string]int, error) { return map[string]int{"report": 2}, fail }, "report", "settle")
	m.JobDead("settle")
	want := map[string]float64{
		"bankrail_jobs_dead{report}": 2, "bankrail_jobs_dead{settle}": 0,
		"bankrail_jobs_dead_total{report}": 0, "bankrail_jobs_dead_total{settle}": 1,
	}
	got := gather(t, reg)
	for name, v := range want {
		if w, ok := got[name]; !ok || w != v {
			t.Errorf("%s = %v (present %v), want %v", name, w, ok, v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("metrics %v, want %v", got, want)
	}
	fail = errors.New("the database is down")
	got = gather(t, reg)
	if _, ok := got["bankrail_jobs_dead{report}"]; ok || len(got) != 2 {
		t.Fatalf("metrics while the database is down: %v; want the counters only", got)
	}
}
