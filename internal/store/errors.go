package store

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/bankrail/bankrail/internal/errs"
)

// translate turns a driver error into a domain error: no rows becomes
// RESOURCE_NOT_FOUND, a unique violation becomes CONFLICT, a change of
// postings the database refused is INTERNAL with ledger.ErrAppendOnly, a
// lost or refused connection is SERVICE_UNAVAILABLE (Unavailable);
// anything else is wrapped with what was being done and stays internal.
func translate(err error, what string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return errs.E(errs.NotFound, "%s was not found.", what)
	case isUniqueViolation(err):
		return errs.Wrap(errs.Conflict, err, "%s already exists.", what)
	case isAppendOnlyRefusal(err):
		return appendOnlyRefusal(err, what)
	case connectionLost(err):
		return Unavailable(fmt.Errorf("%s: %w", what, err))
	default:
		return fmt.Errorf("%s: %w", what, err)
	}
}

// isUniqueViolation reports a unique or primary-key violation on either engine.
func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "23505"
	}
	var sqErr *sqlite.Error
	if errors.As(err, &sqErr) {
		c := sqErr.Code()
		return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}

// isConstraintViolation reports any refusal by a constraint (unique,
// foreign key, not null, check) on either engine.
func isConstraintViolation(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "23")
	}
	var sqErr *sqlite.Error
	return errors.As(err, &sqErr) && sqErr.Code()&0xff == sqlite3.SQLITE_CONSTRAINT
}

// isDeadlock reports a transaction PostgreSQL aborted to break a deadlock
// (SQLSTATE 40P01); SQLite, with its one writer, has none.
func isDeadlock(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "40P01"
}
