package store

import (
	"context"
	"sync"
	"time"

	"github.com/bankrail/bankrail/internal/ratelimit"
)

// RateLimits is the API rate limit's counter shared by the instances on
// this database (table api_rate_limits), every request counted exactly
// (RateLimitsFor with no limit).
func (s *Store) RateLimits() ratelimit.Counter { return rateLimits{s: s} }

// RateLimitsFor is the counter of a limit of limit requests per window:
// while an application's count, as this instance last read it, is at
// most half the limit, a request is answered at once with that count plus
// this instance's requests since, and counted in the database by the next
// upsert, written behind (at most one per application every
// countBehindEvery; see requestCounts). From half the limit on, every
// request waits for its exact count as RateLimits counts it. limit <= 0:
// RateLimits.
func (s *Store) RateLimitsFor(limit int64) ratelimit.Counter {
	return rateLimits{s: s, behind: max(limit, 0) / 2}
}

type rateLimits struct {
	s *Store
	// behind: the count up to which requests are answered at once and
	// their upserts written behind (0: never).
	behind int64
}

// countBehindEvery is how long the requests answered at once wait in this
// instance before one upsert counts them all: with the window's count at
// most half the limit, the instances would have to make the other half
// within it for a request over the limit to be let through, and a busy
// application costs the database one upsert per period instead of one per
// batch of concurrent requests.
const countBehindEvery = 20 * time.Millisecond

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
// updated by every request in turn. Far below the limit (RateLimitsFor)
// the request does not wait for the round trip at all.
func (r rateLimits) CountRequest(ctx context.Context, application string, start time.Time) (int64, time.Time, error) {
	return r.s.counts.count(ctx, r.s, application, start, r.behind)
}

// requestCounts coalesces the rate limit's upserts per application and
// window: at most one upsert of each is on its way; the requests that come
// meanwhile join the next batch, or, while the window's count is far below
// the limit, are answered at once and join it without waiting.
type requestCounts struct {
	mu     sync.Mutex
	keys   map[countKey]*countState
	latest map[string]int64 // application -> the newest window it has a state of
	// statements counts the upserts sent (tests).
	statements int64
}

type countKey struct {
	application string
	start       int64
}

// countState is one key's upsert on its way (busy), the batch waiting for
// its turn, and what is known of its count for the requests answered at
// once.
type countState struct {
	busy bool
	next *countBatch
	// known: the last upsert answered total and counted (and nothing
	// failed since); total then grows by each request answered at once.
	known   bool
	total   int64
	counted int64
	// unsent are the requests answered at once and not yet in an upsert;
	// timer: an upsert of them is due (countBehindEvery).
	unsent int64
	timer  bool
	ended  bool // a later window of the application has begun: dropped once idle
}

// idle reports whether nothing of st is on its way or due.
func (st *countState) idle() bool { return !st.busy && st.next == nil && st.unsent == 0 && !st.timer }

// countBatch is the requests one upsert counts.
type countBatch struct {
	n       int64
	turn    chan struct{} // closed when its upsert may be sent
	done    chan struct{} // closed once total, counted and err are set
	total   int64
	counted int64
	err     error
}

// state is k's state, made when absent; a state of an earlier window of
// the same application ends (dropped at once when idle). c.mu is held.
func (c *requestCounts) state(k countKey) *countState {
	if c.keys == nil {
		c.keys, c.latest = map[countKey]*countState{}, map[string]int64{}
	}
	st := c.keys[k]
	if st != nil {
		return st
	}
	st = &countState{}
	c.keys[k] = st
	if prev, ok := c.latest[k.application]; !ok || prev < k.start {
		c.latest[k.application] = k.start
		if ok {
			old := countKey{k.application, prev}
			if o := c.keys[old]; o != nil {
				o.ended = true
				c.drop(old, o)
			}
		}
	} else if prev > k.start {
		st.ended = true // a request stamped with an earlier window: counted exactly, not kept
	}
	return st
}

// drop forgets st once it is idle and either ended or knows nothing worth
// keeping. c.mu is held.
func (c *requestCounts) drop(k countKey, st *countState) {
	if st.idle() && (st.ended || !st.known) && c.keys[k] == st {
		delete(c.keys, k)
		if c.latest[k.application] == k.start {
			delete(c.latest, k.application)
		}
	}
}

// count counts one request into its key: answered at once when the count
// known is at most behind, else in the batch of its key, whose upsert it
// sends when it is the batch's first request (after the upsert before it);
// it returns its own count.
func (c *requestCounts) count(ctx context.Context, s *Store, application string, start time.Time, behind int64) (int64, time.Time, error) {
	k := countKey{application, micros(start)}
	c.mu.Lock()
	st := c.state(k)
	if behind > 0 && st.known && st.total < behind && !st.ended {
		st.total++
		st.unsent++
		n, counted := st.total, st.counted
		if !st.busy && !st.timer {
			st.timer = true
			time.AfterFunc(countBehindEvery, func() { c.due(s, k, st) })
		}
		c.mu.Unlock()
		return n, fromMicros(counted), nil
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

// due sends the upsert of the requests answered at once, unless one is on
// its way (its end sends them).
func (c *requestCounts) due(s *Store, k countKey, st *countState) {
	c.mu.Lock()
	st.timer = false
	if st.busy || st.unsent == 0 {
		c.drop(k, st)
		c.mu.Unlock()
		return
	}
	st.busy = true
	c.mu.Unlock()
	b := &countBatch{done: make(chan struct{})}
	c.send(context.Background(), s, k, st, b)
}

// send runs the upsert of b and of the requests answered at once before
// it, answers b, and gives the turn to the batch that gathered meanwhile,
// if any, or else has the requests answered at once meanwhile sent after
// countBehindEvery.
func (c *requestCounts) send(ctx context.Context, s *Store, k countKey, st *countState, b *countBatch) {
	c.mu.Lock()
	behind := st.unsent // answered before b's requests: counted before them
	st.unsent = 0
	n := b.n + behind // no request joins b once its turn came (st.next moved on)
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
	if b.err != nil {
		// Until an upsert succeeds, every request waits for its own
		// answer (and gets the error). The requests answered at once that
		// this one carried stay uncounted: they were let through while the
		// count was far below the limit, and trying them again would keep
		// a failing statement going with no request waiting for it.
		st.known = false
	} else {
		st.known, st.counted = true, b.counted
		st.total = b.total + st.unsent // with those answered at once meanwhile
	}
	if next := st.next; next != nil {
		st.next = nil
		close(next.turn)
	} else {
		st.busy = false
		if st.unsent > 0 && !st.timer {
			st.timer = true
			time.AfterFunc(countBehindEvery, func() { c.due(s, k, st) })
		}
		c.drop(k, st)
	}
	c.mu.Unlock()
	close(b.done)
}
