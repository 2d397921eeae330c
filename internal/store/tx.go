package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"weak"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bankrail/bankrail/internal/event"
	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/inbox"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/report"
)

// Tx is one unit of work: the repositories of every responsibility over one
// database transaction. A use case composes what it writes (the payment, its
// events, its notifications, the idempotency result, later the ledger's
// postings and jobs) through a Tx, and all of it commits or none of it does.
// A Tx is only valid inside the function given to InTx.
type Tx struct {
	s  *Store
	tx *sql.Tx
}

// InTx runs fn in one transaction: committed when fn returns nil, rolled
// back otherwise (fn's error is returned as it is). On SQLite the
// transaction holds the one writer from its start (BEGIN IMMEDIATE); on
// PostgreSQL rows are locked as the repositories touch them. Before the
// commit it writes the pending audit entry of ctx's request, if any (see
// internal/audit): the one place changes made through the API are audited.
//
// Concurrent units of work share transactions (group commit, commitGroup
// below): each runs inside a savepoint of its own, so that one that fails
// is rolled back alone and gets its own error, and the others commit
// together, at the cost of one commit. To fn this is invisible: what it
// writes commits if and only if it returns nil, and it sees what units
// committed before it, or grouped before it, wrote.
func (s *Store) InTx(ctx context.Context, fn func(*Tx) error) error {
	s.warmWrites(ctx) // before any transaction: preparing needs the writer
	return s.grouped(&unit{ctx: ctx, done: make(chan struct{}), work: func(tx *sql.Tx) error {
		if err := fn(&Tx{s: s, tx: tx}); err != nil {
			return err
		}
		return s.writeAudit(ctx, tx)
	}})
}

// Transactor adapts InTx to a domain package's own view of a unit of work:
// R is that package's interface of the repositories it needs (for example
// payment.Repos), which *Tx implements; the assertions below check each at
// compile time.
func Transactor[R any](s *Store) func(ctx context.Context, fn func(R) error) error {
	return func(ctx context.Context, fn func(R) error) error {
		return s.InTx(ctx, func(tx *Tx) error { return fn(any(tx).(R)) })
	}
}

// Every domain view of a unit of work that *Tx must implement.
var (
	_ payment.Repos = (*Tx)(nil)
	_ inbox.Repos   = (*Tx)(nil)
	_ report.Repos  = (*Tx)(nil)
)

// Payments is the payment repository inside the transaction.
func (t *Tx) Payments() payment.Repository { return payments{s: t.s, q: t.tx, tx: t.tx} }

// Events is the event log inside the transaction.
func (t *Tx) Events() event.Log { return events{q: t.tx} }

// Outbox writes notifications inside the transaction: they are sent if and
// only if it commits.
func (t *Tx) Outbox() notify.Outbox { return outbox{s: t.s, tx: t.tx} }

// Idempotency completes idempotency keys inside the transaction.
func (t *Tx) Idempotency() idempotency.Completer { return keyCompleter{s: t.s, tx: t.tx} }

// Inbox is the sandbox inbox inside the transaction.
func (t *Tx) Inbox() inbox.Repository { return inboxEntries{q: t.tx} }

// Inbox is the sandbox inbox outside any unit of work (reads).
func (s *Store) Inbox() inbox.Repository { return inboxEntries{q: s.read} }

// Payments is the payment repository outside any unit of work: reads on the
// read pool, and writes that are each atomic by themselves.
func (s *Store) Payments() payment.Repository { return payments{s: s, q: s.read} }

// Events is the event log outside any unit of work (reads).
func (s *Store) Events() event.Log { return events{q: s.read} }

// IdempotencyKeys claims and releases idempotency keys, each in a
// transaction of its own.
func (s *Store) IdempotencyKeys() idempotency.Keys { return keys{s: s} }

// Group commit. Units of work (InTx) queue; a worker takes every unit
// queued, up to maxGroup, and runs them in one transaction, each between
// SAVEPOINT and RELEASE, then commits once: on SQLite, whose one writer
// serialises transactions anyway, the pages the units share are written to
// the WAL once per group instead of once per unit, and BEGIN and COMMIT are
// paid once; on PostgreSQL, one commit (WAL flush) serves the group. A unit
// waits only while the group before it commits: alone, it runs at once.
//
// Outcomes stay per unit. A unit whose work fails is rolled back to its
// savepoint and gets its error; the others go on. When the transaction
// itself breaks (a savepoint or the commit fails, say a lost connection),
// nothing of it committed, and every unit not yet answered runs again
// alone, in a transaction of its own, as does a unit that lost a deadlock
// to another transaction (PostgreSQL).

// unit is one unit of work waiting for, or in, a group.
type unit struct {
	ctx   context.Context
	work  func(*sql.Tx) error // fn and the audit entry
	hooks map[string]func()   // what it asked to run once committed
	err   error
	done  chan struct{} // closed once err is its outcome
}

func (u *unit) finish(err error) {
	u.err = err
	close(u.done)
}

func (u *unit) finished() bool {
	select {
	case <-u.done:
		return true
	default:
		return false
	}
}

// groupCommit is a Store's queue of units and its workers.
type groupCommit struct {
	mu      sync.Mutex
	queue   []*unit
	workers int
}

// Limits of group commit.
const (
	maxGroup = 64 // units in one transaction
	// pgGroupWorkers is how many groups run at once on PostgreSQL (SQLite
	// has one writer: one). More overlap the round trips of one group with
	// another's commit; each group still needs only one commit.
	pgGroupWorkers = 4
)

// groups holds each Store's groupCommit (a Store's fields are store.go's;
// the entry goes with the Store).
var groups sync.Map // weak.Pointer[Store] -> *groupCommit

func (s *Store) groupCommit() *groupCommit {
	key := weak.Make(s)
	if g, ok := groups.Load(key); ok {
		return g.(*groupCommit)
	}
	g, loaded := groups.LoadOrStore(key, &groupCommit{})
	if !loaded {
		runtime.AddCleanup(s, func(k weak.Pointer[Store]) { groups.Delete(k) }, key)
	}
	return g.(*groupCommit)
}

// grouped queues u and returns its outcome. With a worker slot free, the
// caller works itself (no hand-over when nothing else waits) until its own
// unit is done, then leaves what is still queued to a new worker.
func (s *Store) grouped(u *unit) error {
	g := s.groupCommit()
	limit := 1
	if s.dialect == Postgres {
		limit = pgGroupWorkers
	}
	g.mu.Lock()
	g.queue = append(g.queue, u)
	work := g.workers < limit
	if work {
		g.workers++
	}
	g.mu.Unlock()
	if work {
		g.work(s, u)
	}
	<-u.done
	return u.err
}

// work runs groups while units are queued; with own set, only until own is
// done (the slot then goes to a new goroutine if units wait).
func (g *groupCommit) work(s *Store, own *unit) {
	for {
		g.mu.Lock()
		if len(g.queue) == 0 {
			g.workers--
			g.mu.Unlock()
			return
		}
		if own != nil && own.finished() {
			g.mu.Unlock()
			go g.work(s, nil)
			return
		}
		n := min(len(g.queue), maxGroup)
		batch := slices.Clone(g.queue[:n])
		clear(g.queue[:n])
		g.queue = g.queue[n:]
		g.mu.Unlock()
		s.commitGroup(batch)
	}
}

// commitGroup runs batch in one transaction and answers every unit.
func (s *Store) commitGroup(batch []*unit) {
	if len(batch) == 1 { // no savepoint needed
		u := batch[0]
		u.finish(s.inTx(u.ctx, u.work))
		return
	}
	ctx := context.Background() // the group's; each unit's statements use its own context
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		for _, u := range batch {
			u.finish(fmt.Errorf("begin transaction: %w", err))
		}
		return
	}
	var kept, alone []*unit
	broken := false
	for i, u := range batch {
		if err := u.ctx.Err(); err != nil {
			u.finish(err)
			continue
		}
		u.hooks = map[string]func(){}
		s.afterCommit.Store(tx, u.hooks) // onCommit adds to this unit's hooks
		if _, err := tx.ExecContext(ctx, "SAVEPOINT unit"); err != nil {
			alone, broken = append(alone, batch[i:]...), true
			break
		}
		werr := u.work(tx)
		if werr == nil {
			if _, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT unit"); err != nil {
				alone, broken = append(alone, batch[i:]...), true
				break
			}
			kept = append(kept, u)
			continue
		}
		if _, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT unit"); err != nil {
			alone, broken = append(alone, batch[i:]...), true // its error may be the broken transaction's
			break
		}
		if _, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT unit"); err != nil {
			alone, broken = append(alone, batch[i:]...), true
			break
		}
		if lostToAnother(werr) {
			alone = append(alone, u)
		} else {
			u.finish(werr)
		}
	}
	s.afterCommit.Delete(tx)
	if broken {
		_ = tx.Rollback()
		alone = append(kept, alone...)
	} else if err := tx.Commit(); err != nil {
		alone = append(kept, alone...) // nothing committed
	} else {
		s.ckpt.committed()
		for _, u := range kept {
			for _, fn := range u.hooks {
				fn()
			}
			u.finish(nil)
		}
	}
	for _, u := range alone {
		u.finish(s.inTx(u.ctx, u.work))
	}
}

// lostToAnother reports an error that says nothing of the unit itself: it
// met another transaction (a deadlock, a serialisation failure, a lock
// that could not be had), on PostgreSQL; alone it may well succeed.
func lostToAnother(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "40P01", "40001", "55P03":
			return true
		}
	}
	return false
}
