// Package dbtest gives tests an isolated database of their own on each
// engine, dropped when the test ends.
//
// Two kinds are on offer. Migrated (EachMigrated) is what almost every test
// wants: a database at the current schema, a copy of a template that each
// test binary migrates once (on SQLite a copy of a migrated file; on
// PostgreSQL a schema rebuilt from a migrated template schema by a script
// written once per binary, see pgclone.go). New (Each) is an empty
// database, for the tests of the migrations themselves, which must run
// them from scratch.
//
// PostgreSQL is at BANKRAIL_TEST_DATABASE_URL (default
// postgres://postgres@127.0.0.1:5432/test); each test gets a schema of that
// database. Its tests skip with a clear message when the server is
// unreachable, and fail instead when BANKRAIL_REQUIRE_POSTGRES=1 (as in CI).
package dbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver

	"github.com/bankrail/bankrail/internal/store"
)

// DefaultPostgresURL is used when BANKRAIL_TEST_DATABASE_URL is not set.
const DefaultPostgresURL = "postgres://postgres@127.0.0.1:5432/test"

// Engine is one database engine to run tests on.
type Engine string

// Engines.
const (
	SQLite   Engine = "sqlite"
	Postgres Engine = "postgres"
)

// Engines lists every engine; tests run once per engine.
var Engines = []Engine{SQLite, Postgres}

// DB names a test's database: DataDir for SQLite, DatabaseURL for PostgreSQL.
type DB struct {
	Engine      Engine
	DataDir     string
	SQLitePath  string
	DatabaseURL string
}

// Each runs fn as a subtest per engine, each with a fresh, empty database:
// for tests of the migrations. Other tests use EachMigrated.
func Each(t *testing.T, fn func(t *testing.T, db DB)) {
	t.Helper()
	each(t, New, fn)
}

// EachMigrated runs fn as a subtest per engine, each with a database of its
// own at the current schema (see Migrated).
func EachMigrated(t *testing.T, fn func(t *testing.T, db DB)) {
	t.Helper()
	each(t, Migrated, fn)
}

func each(t *testing.T, make func(testing.TB, Engine) DB, fn func(t *testing.T, db DB)) {
	t.Helper()
	for _, e := range Engines {
		t.Run(string(e), func(t *testing.T) {
			fn(t, make(t, e))
		})
	}
}

// New returns a fresh, empty database on engine e, dropped when the test
// ends: nothing is migrated (for tests of the migrations).
func New(t testing.TB, e Engine) DB {
	t.Helper()
	if e == SQLite {
		dir := t.TempDir()
		return DB{Engine: SQLite, DataDir: dir, SQLitePath: filepath.Join(dir, "bankrail.db")}
	}
	return newSchema(t, PostgresURL(t))
}

// Migrated returns a database of the test's own on engine e, at the current
// schema, dropped when the test ends. It is a copy of a template migrated
// once per test binary, so a test pays for a copy, not for every migration;
// what one test writes no other test sees.
func Migrated(t testing.TB, e Engine) DB {
	t.Helper()
	if e == SQLite {
		return cloneSQLite(t)
	}
	return clonePostgres(t, PostgresURL(t))
}

// migrate brings db to the current schema through the store's own
// migrations.
func migrate(ctx context.Context, db DB) error {
	s, err := store.Open(ctx, store.Options{DatabaseURL: db.DatabaseURL, SQLitePath: db.SQLitePath},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	if err := s.Migrate(ctx); err != nil {
		_ = s.Close() // the migration's error is the one to report
		return err
	}
	return s.Close()
}

// migrateTimeout bounds the building of a template.
const migrateTimeout = 5 * time.Minute

var (
	pgOnce sync.Once
	pgErr  error
)

// PostgresURL returns the test server's URL, or skips (fails in CI) the test
// when it cannot be reached.
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv("BANKRAIL_TEST_DATABASE_URL")
	if base == "" {
		base = DefaultPostgresURL
	}
	pgOnce.Do(func() {
		db, err := sql.Open("pgx", base)
		if err != nil {
			pgErr = err
			return
		}
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		pgErr = db.PingContext(ctx)
	})
	if pgErr != nil {
		redacted := base
		if u, err := url.Parse(base); err == nil {
			redacted = u.Redacted()
		}
		if os.Getenv("BANKRAIL_REQUIRE_POSTGRES") == "1" {
			t.Fatalf("PostgreSQL is required (BANKRAIL_REQUIRE_POSTGRES=1) but %s is unreachable: %v", redacted, pgErr)
		}
		t.Skipf("skipping PostgreSQL test: %s is unreachable (%v). Start PostgreSQL or set BANKRAIL_TEST_DATABASE_URL; CI sets BANKRAIL_REQUIRE_POSTGRES=1 and fails instead.", redacted, pgErr)
	}
	return base
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
