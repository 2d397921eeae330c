package dbtest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	_ "modernc.org/sqlite" // SQLite driver
)

// sqliteTemplate is the migrated SQLite database of this test binary, as
// the bytes of one self-contained file (no WAL beside it), built by the
// first test that asks.
var sqliteTemplate struct {
	once  sync.Once
	bytes []byte
	err   error
}

// cloneSQLite writes a copy of the migrated template into the test's own
// temporary directory.
func cloneSQLite(t testing.TB) DB {
	t.Helper()
	sqliteTemplate.once.Do(func() { sqliteTemplate.bytes, sqliteTemplate.err = buildSQLiteTemplate() })
	if sqliteTemplate.err != nil {
		t.Fatalf("migrated SQLite template: %v", sqliteTemplate.err)
	}
	dir := t.TempDir()
	db := DB{Engine: SQLite, DataDir: dir, SQLitePath: filepath.Join(dir, "bankrail.db")}
	if err := os.WriteFile(db.SQLitePath, sqliteTemplate.bytes, 0o600); err != nil {
		t.Fatalf("copy the SQLite template: %v", err)
	}
	return db
}

// buildSQLiteTemplate migrates a database in a directory of its own, then
// writes it out with VACUUM INTO as one file (the WAL folded in) and keeps
// that file's bytes; the directory is removed at once, so nothing is left
// behind when the binary ends.
func buildSQLiteTemplate() ([]byte, error) {
	dir, err := os.MkdirTemp("", "bankrail-dbtest-")
	if err != nil {
		return nil, fmt.Errorf("create a directory: %w", err)
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), migrateTimeout)
	defer cancel()
	src := filepath.Join(dir, "migrated.db")
	if err := migrate(ctx, DB{Engine: SQLite, DataDir: dir, SQLitePath: src}); err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	db, err := sql.Open("sqlite", "file:"+src)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	defer db.Close()
	out := filepath.Join(dir, "template.db")
	if _, err := db.ExecContext(ctx, `VACUUM INTO '`+strings.ReplaceAll(out, "'", "''")+`'`); err != nil {
		return nil, fmt.Errorf("vacuum into a single file: %w", err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	return b, nil
}
