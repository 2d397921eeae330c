package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/bankrail/bankrail/internal/payment"
)

// viewReads coalesces the reads of payment details records (GetView outside
// a unit of work, as GET /payments/{id} reads) on PostgreSQL: at most
// viewReadsInFlight reads or batches are on their way at once; a read that
// finds a slot free goes alone, as before; the reads that come while every
// slot is busy gather and go, when one is back, as one statement
// (selectViewBatch) for all of them. A lone
// read therefore costs what it did; under load one execution, one round
// trip and one wake-up of a backend serve many requests, where the
// database's CPU per GET was dominated by those fixed costs (starting the
// executor of a query of four subqueries, the socket's send and receive),
// not by the rows (docs/performance.md).
//
// This is not a cache: a read joins only a batch not yet sent, so it sees
// every change committed before it began, as a read of its own would.
// SQLite reads in this process, without a round trip: it reads alone.
type viewReads struct {
	mu       sync.Mutex
	inFlight int          // reads and batches on their way
	waiting  []*viewBatch // gathered while every slot was busy, oldest first
	// sent counts the batches sent and the reads they carried (tests).
	sent, carried int64
}

// viewReadsInFlight bounds the reads of details records on their way at
// once. One makes the batches largest, and the CPU per GET of this process
// and of the database least: beside two in flight in the same runs it was
// about a quarter less (docs/performance.md); a batch of many rows costs
// the database little more than one of a single row, so throughput
// follows the load by the batch's size. viewBatchMax bounds a batch (its
// arrays and its rows); a full batch starts the next.
const (
	viewReadsInFlight = 1
	viewBatchMax      = 64
	// viewBatchTimeout bounds a batch's statement: it serves many
	// requests, so none's context cancels it (each waits for it within
	// its own).
	viewBatchTimeout = 30 * time.Second
)

// viewKey is one read of a batch: a payment id and its viewer.
type viewKey struct{ viewer, id string }

// viewBatch is the reads one statement serves and what it found.
type viewBatch struct {
	keys  []viewKey
	items []payment.ListItem // by position in keys
	found []bool
	err   error
	done  chan struct{} // closed once items, found and err are set
}

// get reads viewer's payment id: alone when a slot is free, else in the
// batch gathering for the next free slot.
func (c *viewReads) get(ctx context.Context, s *Store, viewer, id string) (payment.ListItem, error) {
	c.mu.Lock()
	if c.inFlight < viewReadsInFlight && len(c.waiting) == 0 {
		c.inFlight++
		c.mu.Unlock()
		it, err := s.getViewAlone(ctx, viewer, id)
		c.release(s)
		return it, err
	}
	var b *viewBatch
	if n := len(c.waiting); n > 0 && len(c.waiting[n-1].keys) < viewBatchMax {
		b = c.waiting[n-1]
	} else {
		b = &viewBatch{done: make(chan struct{})}
		c.waiting = append(c.waiting, b)
	}
	pos := len(b.keys)
	b.keys = append(b.keys, viewKey{viewer, id})
	c.mu.Unlock()
	select {
	case <-b.done:
	case <-ctx.Done(): // the batch goes on for the others
		return payment.ListItem{}, fmt.Errorf("read payment %s: %w", id, ctx.Err())
	}
	switch {
	case b.err != nil:
		return payment.ListItem{}, b.err
	case !b.found[pos]:
		return payment.ListItem{}, translate(sql.ErrNoRows, "payment "+id)
	}
	return b.items[pos], nil
}

// release frees a slot and sends the oldest gathered batch in it, if any.
func (c *viewReads) release(s *Store) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inFlight--
	for c.inFlight < viewReadsInFlight && len(c.waiting) > 0 {
		b := c.waiting[0]
		c.waiting[0] = nil
		c.waiting = c.waiting[1:]
		c.inFlight++
		c.sent++
		c.carried += int64(len(b.keys))
		go c.send(s, b)
	}
}

// send runs b's statement, answers its reads, and frees its slot.
func (c *viewReads) send(s *Store, b *viewBatch) {
	ctx, cancel := context.WithTimeout(context.Background(), viewBatchTimeout)
	defer cancel()
	b.err = s.getViewBatch(ctx, b)
	c.release(s)
	close(b.done)
}

// counts returns the reads and batches on their way, the batches sent, the
// reads they carried and the reads gathered, not yet sent (tests).
func (c *viewReads) counts() (inFlight int, sent, carried int64, waiting int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range c.waiting {
		waiting += len(b.keys)
	}
	return c.inFlight, c.sent, c.carried, waiting
}

// getViewAlone is GetView's one prepared query on the read pool.
func (s *Store) getViewAlone(ctx context.Context, viewer, id string) (payment.ListItem, error) {
	st, err := s.prepared(ctx, s.read, selectVisibleView)
	if err != nil {
		return payment.ListItem{}, err
	}
	var it payment.ListItem
	it.Payment, err = scanPaymentView(st.QueryRowContext(ctx, id, viewer), &it.Refunded, &it.Available)
	return it, translate(err, "payment "+id)
}

// selectViewBatch reads the payments of a batch ($1 their ids, $2 their
// viewers, in the same order) as selectVisibleView reads one, each row
// with its position in the batch (from 1). LIMIT 1 keeps each read a
// look-up of the primary key, whatever the planner thinks of the arrays'
// length.
var selectViewBatch = `SELECT x.*, k.ord FROM unnest(CAST($1 AS TEXT[]), CAST($2 AS TEXT[])) WITH ORDINALITY AS k(id, viewer, ord)
	CROSS JOIN LATERAL (SELECT ` + viewColumns + `, ` + refundAmounts + ` FROM payments p
		WHERE p.id = k.id AND EXISTS (SELECT 1 FROM customer_tree v WHERE v.ancestor_id = k.viewer AND v.descendant_id = p.customer_id)
		LIMIT 1) x`

// getViewBatch reads every payment of b in one statement.
func (s *Store) getViewBatch(ctx context.Context, b *viewBatch) error {
	ids, viewers := make([]string, len(b.keys)), make([]string, len(b.keys))
	for i, k := range b.keys {
		ids[i], viewers[i] = k.id, k.viewer
	}
	b.items, b.found = make([]payment.ListItem, len(b.keys)), make([]bool, len(b.keys))
	st, err := s.prepared(ctx, s.read, selectViewBatch)
	if err != nil {
		return err
	}
	rows, err := st.QueryContext(ctx, ids, viewers)
	if err != nil {
		return translate(err, "payments")
	}
	defer rows.Close()
	for rows.Next() {
		var it payment.ListItem
		var ord int64
		if it.Payment, err = scanPaymentView(rows, &it.Refunded, &it.Available, &ord); err != nil {
			return translate(err, "payments")
		}
		if ord < 1 || ord > int64(len(b.keys)) {
			return fmt.Errorf("read payments: a row of position %d in a batch of %d", ord, len(b.keys))
		}
		b.items[ord-1], b.found[ord-1] = it, true
	}
	return translate(rows.Err(), "payments")
}
