// Package dbtest gives tests a fresh, isolated database on each engine:
// SQLite in a temporary directory, and PostgreSQL in a schema of its own at
// BANKRAIL_TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test).
// PostgreSQL tests skip with a clear message when the server is unreachable,
// and fail instead when BANKRAIL_REQUIRE_POSTGRES=1 (as in CI).
package dbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver
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

// DB names a fresh database: DataDir for SQLite, DatabaseURL for PostgreSQL.
type DB struct {
	Engine      Engine
	DataDir     string
	SQLitePath  string
	DatabaseURL string
}

// Each runs fn as a subtest per engine, each with a fresh database.
func Each(t *testing.T, fn func(t *testing.T, db DB)) {
	t.Helper()
	for _, e := range Engines {
		t.Run(string(e), func(t *testing.T) {
			fn(t, New(t, e))
		})
	}
}

// New returns a fresh database on engine e, dropped when the test ends.
func New(t testing.TB, e Engine) DB {
	t.Helper()
	if e == SQLite {
		dir := t.TempDir()
		return DB{Engine: SQLite, DataDir: dir, SQLitePath: filepath.Join(dir, "bankrail.db")}
	}
	base := PostgresURL(t)
	schema := "bt_" + randomHex(8)
	admin := openAdmin(t, base)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("create test schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.ExecContext(ctx, `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Logf("drop test schema %s: %v", schema, err)
		}
	})
	u, _ := url.Parse(base)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return DB{Engine: Postgres, DatabaseURL: u.String()}
}

var (
	pgOnce  sync.Once
	pgErr   error
	adminMu sync.Mutex
	admins  = map[string]*sql.DB{}
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

func openAdmin(t testing.TB, base string) *sql.DB {
	adminMu.Lock()
	defer adminMu.Unlock()
	if db, ok := admins[base]; ok {
		return db
	}
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	db.SetMaxOpenConns(4)
	admins[base] = db
	return db
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
