package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ledger"
)

// Version 47 makes ledger_postings append-only in the database itself: a
// trigger refuses every UPDATE and DELETE (on PostgreSQL also TRUNCATE).
// Triggers are written in each engine's own language, so it is a Go
// migration. The one deliberate exception is the sandbox's reset and
// restore, which empty every table: they unlock the postings inside their
// own transaction (unlockPostings), and the unlock ends with it.

// appendOnlyVersion is the migration's number.
const appendOnlyVersion = 47

// appendOnlyMessage starts the error both engines' triggers raise.
const appendOnlyMessage = "ledger_postings is append-only"

// postingsUnlockTable is SQLite's unlock: a row in it, inserted and
// deleted again inside a sandbox reset's transaction, lets the triggers
// through (SQLite has no session variables). It is never dumped nor
// replaced (keptTables).
const postingsUnlockTable = "ledger_postings_unlock"

// postingsUnlockSetting is PostgreSQL's unlock: SET LOCAL for one transaction.
const postingsUnlockSetting = "bankrail.ledger_postings_unlocked"

var appendOnlyUp = map[Dialect]string{
	SQLite: `
CREATE TABLE ` + postingsUnlockTable + ` (id INTEGER PRIMARY KEY CHECK (id = 1));
CREATE TRIGGER ledger_postings_no_update BEFORE UPDATE ON ledger_postings
WHEN NOT EXISTS (SELECT 1 FROM ` + postingsUnlockTable + `)
BEGIN SELECT RAISE(ABORT, '` + appendOnlyMessage + `: UPDATE refused'); END;
CREATE TRIGGER ledger_postings_no_delete BEFORE DELETE ON ledger_postings
WHEN NOT EXISTS (SELECT 1 FROM ` + postingsUnlockTable + `)
BEGIN SELECT RAISE(ABORT, '` + appendOnlyMessage + `: DELETE refused'); END;`,
	Postgres: `
CREATE FUNCTION ledger_postings_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('` + postingsUnlockSetting + `', true) = 'on' THEN
        IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
        RETURN NEW;
    END IF;
    RAISE EXCEPTION '` + appendOnlyMessage + `: % refused', TG_OP USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER ledger_postings_no_change BEFORE UPDATE OR DELETE ON ledger_postings
    FOR EACH ROW EXECUTE FUNCTION ledger_postings_append_only();
CREATE TRIGGER ledger_postings_no_truncate BEFORE TRUNCATE ON ledger_postings
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_postings_append_only();`,
}

var appendOnlyDown = map[Dialect]string{
	SQLite: `DROP TRIGGER ledger_postings_no_update; DROP TRIGGER ledger_postings_no_delete; DROP TABLE ` + postingsUnlockTable,
	Postgres: `DROP TRIGGER ledger_postings_no_truncate ON ledger_postings; DROP TRIGGER ledger_postings_no_change ON ledger_postings;
		DROP FUNCTION ledger_postings_append_only()`,
}

// appendOnlyMigration runs the statements of d in ddl.
func appendOnlyMigration(ddl map[Dialect]string, d Dialect) func(ctx context.Context, tx *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, ddl[d]); err != nil {
			return fmt.Errorf("ledger_postings append-only triggers: %w", err)
		}
		return nil
	}
}

// unlockPostings lets the triggers through until lock, inside tx only: the
// sandbox's reset and restore, which empty every table.
func (s *Store) unlockPostings(ctx context.Context, tx *sql.Tx) (lock func() error, err error) {
	if s.dialect == Postgres {
		_, err := tx.ExecContext(ctx, `SET LOCAL `+postingsUnlockSetting+` = 'on'`)
		return func() error {
			_, err := tx.ExecContext(ctx, `SET LOCAL `+postingsUnlockSetting+` = 'off'`)
			return translate(err, "lock the ledger postings")
		}, translate(err, "unlock the ledger postings")
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO `+postingsUnlockTable+` (id) VALUES (1)`)
	return func() error {
		_, err := tx.ExecContext(ctx, `DELETE FROM `+postingsUnlockTable)
		return translate(err, "lock the ledger postings")
	}, translate(err, "unlock the ledger postings")
}

// isAppendOnlyRefusal reports the error of the triggers of version 47.
func isAppendOnlyRefusal(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Message, appendOnlyMessage)
	}
	var sqErr *sqlite.Error
	if errors.As(err, &sqErr) {
		return sqErr.Code() == sqlite3.SQLITE_CONSTRAINT_TRIGGER && strings.Contains(sqErr.Error(), appendOnlyMessage)
	}
	return false
}

// appendOnlyRefusal is the domain error of a refused change of postings:
// INTERNAL (a bug: nothing in bankrail changes a posting), its cause for
// the log only.
func appendOnlyRefusal(err error, what string) error {
	return errs.Wrap(errs.Internal, fmt.Errorf("%s: %w: %w", what, ledger.ErrAppendOnly, err),
		"The ledger's postings cannot be changed.")
}
