package worker_test

import (
	"context"
	"log/slog"
	"sync"
)

// records is a slog handler that keeps every record (level, message and
// attributes), for tests on what a worker logs.
type records struct {
	mu  sync.Mutex
	got []record
}

type record struct {
	level slog.Level
	msg   string
	attrs map[string]any
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *records) WithGroup(string) slog.Handler            { return r }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	attrs := map[string]any{}
	rec.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.Any(); return true })
	r.mu.Lock()
	r.got = append(r.got, record{rec.Level, rec.Message, attrs})
	r.mu.Unlock()
	return nil
}

// at returns the records at level or above.
func (r *records) at(level slog.Level) []record {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []record
	for _, x := range r.got {
		if x.level >= level {
			out = append(out, x)
		}
	}
	return out
}
