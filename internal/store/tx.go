package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5"
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
// Concurrent units of work share transactions (group commit,
// group_commit.go): they commit together, at the cost of one commit, and
// one that fails is rolled back alone and gets its own error (the group
// runs again with a savepoint around each unit). To fn this is invisible:
// what it writes commits if and only if it returns nil, and it sees what units
// committed before it, or grouped before it, wrote.
//
// A unit that lost its database connection before its commit was sent
// runs again (retryLost); what error is left is classified: a lost or
// refused connection is SERVICE_UNAVAILABLE (Unavailable).
func (s *Store) InTx(ctx context.Context, fn func(*Tx) error) error {
	s.warmWrites(ctx) // before any transaction: preparing needs the writer
	work := func(tx *sql.Tx) error {
		if err := fn(&Tx{s: s, tx: tx}); err != nil {
			return err
		}
		return s.writeAudit(ctx, tx)
	}
	if s.runTwice {
		work = s.rehearsed(work)
	}
	return s.retryLost(ctx, func() error { return s.grouped(&unit{ctx: ctx, done: make(chan struct{}), work: work}) })
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
func (s *Store) Payments() payment.Repository { return payments{s: s, q: s.onPool(s.read)} }

// Events is the event log outside any unit of work (reads).
func (s *Store) Events() event.Log { return events{q: s.read} }

// IdempotencyKeys claims and releases idempotency keys, each in a
// transaction of its own.
func (s *Store) IdempotencyKeys() idempotency.Keys { return keys{s: s} }

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

// commitMayHaveHappened reports whether a COMMIT that failed with err may
// still have committed: on PostgreSQL, any failure but an answer of the
// server's. An error the server answered (a serialisation failure, a
// deferred constraint) or a transaction that ended in ROLLBACK committed
// nothing; a connection lost after COMMIT was sent may have committed and
// lost the answer. pgx reports that case as "conn closed", an error it
// also calls safe to retry (pgconn.SafeToRetry), so that is not asked. A
// failed COMMIT on SQLite, whose commit is this process's own, committed
// nothing.
func commitMayHaveHappened(d Dialect, err error) bool {
	if d != Postgres {
		return false
	}
	var pgErr *pgconn.PgError
	return !errors.As(err, &pgErr) && !errors.Is(err, pgx.ErrTxCommitRollback)
}
