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

// kind is a registered kind: its handler and how many of its jobs one
// worker runs at once (0: the worker's Config.Concurrency).
type kind struct {
	run         handler
	concurrency int
}

// Option tunes a kind at its registration.
type Option func(*kind)

// Concurrency is how many jobs of the kind one worker runs at once: a kind
// has slots of its own, so a slow kind (reports) never holds the slots of
// another (refund settlements). Values below 1 keep the worker's default.
func Concurrency(n int) Option { return func(k *kind) { k.concurrency = max(n, 0) } }

// Registry maps kinds to handlers. Register every kind before the worker
// starts.
type Registry struct {
	mu    sync.RWMutex
	kinds map[string]kind
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{kinds: map[string]kind{}} }

// Register makes fn the handler of kind; its argument is decoded from the
// job's JSON (a job whose arguments do not decode is cancelled: retrying
// cannot mend it). Registering a kind twice is a programming error.
func Register[A any](r *Registry, name string, fn func(ctx context.Context, args A) error, opts ...Option) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.kinds[name]; dup {
		panic("job: kind " + name + " registered twice")
	}
	k := kind{run: decoding(name, fn)}
	for _, o := range opts {
		o(&k)
	}
	r.kinds[name] = k
}

// decoding is fn as a handler of the job's JSON arguments.
func decoding[A any](kind string, fn func(ctx context.Context, args A) error) handler {
	return func(ctx context.Context, b []byte) error {
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
	k, ok := r.kinds[kind]
	return k.run, ok
}

// concurrency is how many jobs of each kind a worker runs at once, with
// fallback for the kinds registered without Concurrency.
func (r *Registry) concurrency(fallback int) map[string]int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make(map[string]int, len(r.kinds))
	for name, k := range r.kinds {
		out[name] = fallback
		if k.concurrency > 0 {
			out[name] = k.concurrency
		}
	}
	return out
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
