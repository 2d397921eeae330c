package ratelimit

import (
	"context"
	"sync"
	"time"
)

// Memory is a Counter in the process's memory, for a single instance (on
// SQLite): one window per key, replaced when a later one starts.
type Memory struct {
	mu      sync.Mutex
	windows map[string]memoryWindow
}

type memoryWindow struct {
	start time.Time
	n     int64
}

// NewMemory returns an empty Memory counter.
func NewMemory() *Memory { return &Memory{windows: map[string]memoryWindow{}} }

// CountRequest implements Counter.
func (m *Memory) CountRequest(_ context.Context, key string, start time.Time) (int64, time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	w := m.windows[key]
	if w.start.Before(start) {
		w = memoryWindow{start: start}
	}
	w.n++
	m.windows[key] = w
	return w.n, w.start, nil
}
