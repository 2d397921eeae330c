package job

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
)

// handler runs one job's arguments.
type handler func(ctx context.Context, args []byte) error

// Registry maps kinds to handlers. Register every kind before the worker
// starts.
type Registry struct {
	mu    sync.RWMutex
	kinds map[string]handler
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{kinds: map[string]handler{}} }

// Register makes fn the handler of kind; its argument is decoded from the
// job's JSON (a job whose arguments do not decode is cancelled: retrying
// cannot mend it). Registering a kind twice is a programming error.
func Register[A any](r *Registry, kind string, fn func(ctx context.Context, args A) error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.kinds[kind]; dup {
		panic("job: kind " + kind + " registered twice")
	}
	r.kinds[kind] = func(ctx context.Context, b []byte) error {
		var a A
		if err := json.Unmarshal(b, &a); err != nil {
			return Cancel(fmt.Errorf("decode arguments of %s: %w", kind, err))
		}
		return fn(ctx, a)
	}
}

// lookup returns kind's handler.
func (r *Registry) lookup(kind string) (handler, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	h, ok := r.kinds[kind]
	return h, ok
}

// Kinds lists the registered kinds: a worker claims only those, so during
// a rolling deploy an old instance leaves a new kind to the new ones.
func (r *Registry) Kinds() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.kinds))
	for k := range r.kinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// encodeArgs encodes a handler's argument.
func encodeArgs(args any) ([]byte, error) {
	if args == nil {
		return []byte("{}"), nil
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("encode arguments: %w", err)
	}
	return b, nil
}
