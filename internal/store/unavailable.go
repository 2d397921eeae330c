package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bankrail/bankrail/internal/errs"
)

// UnavailableRetryAfter is the Retry-After of a SERVICE_UNAVAILABLE: a
// failover (the standby promoted, the pool reconnected through the
// multi-host URL) takes about this long.
const UnavailableRetryAfter = time.Second

// errOutcomeUnknown marks a commit whose outcome is unknown (the
// connection lost after COMMIT was sent): the one unit of work that must
// not run again by itself.
var errOutcomeUnknown = errors.New("its outcome is unknown")

// Unavailable returns err as SERVICE_UNAVAILABLE (with Retry-After) when
// it is a lost or refused database connection, and err itself otherwise
// (an error that already carries a code keeps it). The HTTP adapter asks
// it of every uncoded error, so a failover is answered 503, never 500.
func Unavailable(err error) error {
	if err == nil {
		return nil
	}
	if !connectionLost(err) {
		// A statement whose deadline passed (the store's own statements
		// are bounded by Timeouts.Statement: a partition, where no
		// connection fails but none answers) is the database not answering
		// in time: 503 too. It is not a lost connection for retryLost,
		// which must not run a unit whose commit may have been made.
		if !errors.Is(err, context.DeadlineExceeded) || errs.CodeOf(err) != errs.Internal {
			return err
		}
		msg := "The database did not answer in time; retry after the Retry-After delay."
		if errors.Is(err, errOutcomeUnknown) {
			msg = outcomeUnknownMessage
		}
		return &errs.Error{Code: errs.Unavailable, Message: msg, RetryAfter: UnavailableRetryAfter, Cause: err}
	}
	// A commit of unknown outcome says so even when the connection's error
	// was classified on its way (a pipelined COMMIT fails as the queued
	// write sent with it: pipeline.go).
	unknown := errors.Is(err, errOutcomeUnknown)
	if code := errs.CodeOf(err); code != errs.Internal && !(unknown && code == errs.Unavailable) {
		return err
	}
	msg := "The database is unavailable for a moment; retry after the Retry-After delay."
	if unknown {
		msg = outcomeUnknownMessage
	}
	return &errs.Error{Code: errs.Unavailable, Message: msg, RetryAfter: UnavailableRetryAfter, Cause: err}
}

// outcomeUnknownMessage answers a change whose commit's outcome is unknown.
const outcomeUnknownMessage = "The database connection was lost while this change was committed: it may or may not have been made. Retry with the same Idempotency-Key after the Retry-After delay to learn its outcome."

// connectionLost reports a lost, refused or not-yet-ready database
// connection on PostgreSQL: the server died or is shutting down
// (SQLSTATE 08*, 57P01-57P03), has too many connections (53300), or is a
// standby that takes no writes (25006: the pool met the old primary come
// back as a standby); or the network failed.
func connectionLost(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "57P01", "57P02", "57P03", "53300", "25006":
			return true
		}
		return strings.HasPrefix(pgErr.Code, "08")
	}
	var connectErr *pgconn.ConnectError
	var netErr *net.OpError
	return errors.As(err, &connectErr) || errors.As(err, &netErr) ||
		errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE)
}

// unitAttempts bounds how often a unit of work that lost its connection
// before its commit was sent runs; unitBackoff is the first wait between
// runs (doubled each time).
const (
	unitAttempts = 5
	unitBackoff  = 100 * time.Millisecond
)

// retryLost runs a unit of work (run) again while it fails on a lost
// connection before its COMMIT was sent: such a transaction was rolled
// back by the server (or died with it), and every unit is safe to run
// again (group commit does so; BANKRAIL_TEST_RUN_UNITS_TWICE checks it). A
// commit whose outcome is unknown is not run again: the client retries it
// under its Idempotency-Key. The error left is classified (Unavailable).
func (s *Store) retryLost(ctx context.Context, run func() error) error {
	return s.retry(ctx, "unit of work", run, lostBeforeCommit)
}

// retry runs run again, up to unitAttempts times with a doubling wait,
// while again says its error may be retried (PostgreSQL only); what it
// logs names what. The error left is classified (Unavailable).
func (s *Store) retry(ctx context.Context, what string, run func() error, again func(error) bool) error {
	wait := unitBackoff
	for attempt := 1; ; attempt++ {
		err := run()
		if err == nil || s.dialect != Postgres || attempt == unitAttempts || !again(err) {
			return Unavailable(err)
		}
		s.log.WarnContext(ctx, what+" lost its database connection; running it again", "attempt", attempt, "err", err)
		select {
		case <-ctx.Done():
			return Unavailable(err)
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// lostAnyway reports an error that is a lost connection, whether or not a
// commit's outcome is unknown: for what is safe to run again even when its
// commit may have been made (an idempotency claim, which knows its own
// token; a release, which deletes what its token holds).
func lostAnyway(err error) bool {
	code := errs.CodeOf(err)
	return (code == errs.Internal || code == errs.Unavailable) && connectionLost(err)
}

// lostBeforeCommit reports a unit's error that is a lost connection (as
// the driver said it, or as translate classified it) and not a commit
// whose outcome is unknown.
func lostBeforeCommit(err error) bool {
	code := errs.CodeOf(err)
	return (code == errs.Internal || code == errs.Unavailable) && connectionLost(err) && !errors.Is(err, errOutcomeUnknown)
}
