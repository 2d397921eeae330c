package store

import (
	"context"
	"sync"
	"time"

	"github.com/bankrail/bankrail/internal/ratelimit"
)

// RateLimits is the API rate limit's counter shared by the instances on
// this database (table api_rate_limits).
func (s *Store) RateLimits() ratelimit.Counter { return rateLimits{s: s} }

type rateLimits struct{ s *Store }

// CountRequest counts one API request of application in the window
// starting at start, in one atomic upsert: the same window's count grows; a
// later window starts again at 1; an instance whose clock is behind counts
// into the later window another instance opened.
//
// Every request of an application counts into one row, so the requests of
// this instance that arrive while its upsert of that application is on its
// way are counted together by the next one (requestCounts): one statement
// adds them all, and each gets the count it would have got alone in the
// order they came (the total minus those after it). A busy application
// costs one round trip at a time, not one per request, and its row is not
// updated by every request in turn.
func (r rateLimits) CountRequest(ctx context.Context, application string, start time.Time) (int64, time.Time, error) {
	return r.s.counts.count(ctx, r.s, application, start)
}

// requestCounts coalesces the rate limit's upserts per application and
// window: at most one upsert of each is on its way; the requests that come
// meanwhile join the next batch.
type requestCounts struct {
	mu   sync.Mutex
	keys map[countKey]*countState
	// statements counts the upserts sent (tests).
	statements int64
}

type countKey struct {
	application string
	start       int64
}

// countState is one key's upsert on its way (busy) and the batch waiting
// for its turn.
type countState struct {
	busy bool
	next *countBatch
}

// countBatch is the requests one upsert counts.
type countBatch struct {
	n       int64
	turn    chan struct{} // closed when its upsert may be sent
	done    chan struct{} // closed once total, counted and err are set
	total   int64
	counted int64
	err     error
}

// count counts one request into the batch of its key, sends the batch's
// upsert when it is the batch's first request (after the upsert before it),
// and returns its own count.
func (c *requestCounts) count(ctx context.Context, s *Store, application string, start time.Time) (int64, time.Time, error) {
	k := countKey{application, micros(start)}
	c.mu.Lock()
	if c.keys == nil {
		c.keys = map[countKey]*countState{}
	}
	st := c.keys[k]
	if st == nil {
		st = &countState{}
		c.keys[k] = st
	}
	b, first := st.next, st.next == nil
	if first {
		b = &countBatch{turn: make(chan struct{}), done: make(chan struct{})}
		st.next = b
	}
	b.n++
	pos := b.n
	if first && !st.busy {
		st.busy, st.next = true, nil
		close(b.turn)
	}
	c.mu.Unlock()
	if first {
		<-b.turn
		c.send(ctx, s, k, st, b)
	}
	<-b.done
	return b.total - b.n + pos, fromMicros(b.counted), b.err
}

// send runs b's upsert, answers b, and gives the turn to the batch that
// gathered meanwhile, if any.
func (c *requestCounts) send(ctx context.Context, s *Store, k countKey, st *countState, b *countBatch) {
	c.mu.Lock()
	n := b.n // no request joins b once its turn came (st.next moved on)
	c.statements++
	c.mu.Unlock()
	// The batch's requests wait for it: their first's cancellation is not
	// theirs; the statement timeout bounds it (a partition).
	ctx, cancel := s.detached(ctx)
	defer cancel()
	err := s.write.QueryRowContext(ctx, `
		INSERT INTO api_rate_limits (application, window_start, requests) VALUES ($1, $2, $3)
		ON CONFLICT (application) DO UPDATE SET
			requests     = CASE WHEN api_rate_limits.window_start >= $2 THEN api_rate_limits.requests + $3 ELSE $3 END,
			window_start = CASE WHEN api_rate_limits.window_start >= $2 THEN api_rate_limits.window_start ELSE $2 END
		RETURNING requests, window_start`, k.application, k.start, n).Scan(&b.total, &b.counted)
	b.err = translate(err, "count an API request")
	c.mu.Lock()
	if next := st.next; next != nil {
		st.next = nil
		close(next.turn)
	} else {
		st.busy = false
		delete(c.keys, k)
	}
	c.mu.Unlock()
	close(b.done)
}
