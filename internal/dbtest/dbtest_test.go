package dbtest_test

import (
	"context"
	"database/sql"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/store"
)

// open opens db as the application does (migrating it: a no-op on a
// migrated copy), closed when the test ends.
func open(tb testing.TB, db dbtest.DB) *store.Store {
	tb.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, store.Options{DatabaseURL: db.DatabaseURL, SQLitePath: db.SQLitePath}, slog.New(slog.DiscardHandler))
	if err != nil {
		tb.Fatalf("open: %v", err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	if err := s.Migrate(ctx); err != nil {
		tb.Fatalf("migrate: %v", err)
	}
	return s
}

// raw opens db with the driver alone, closed when the test ends.
func raw(tb testing.TB, db dbtest.DB) *sql.DB {
	tb.Helper()
	driver, dsn := "pgx", db.DatabaseURL
	if db.Engine == dbtest.SQLite {
		driver, dsn = "sqlite", "file:"+db.SQLitePath
	}
	d, err := sql.Open(driver, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = d.Close() })
	return d
}

// version is the highest migration applied to db (0 when none).
func version(tb testing.TB, db dbtest.DB) int64 {
	tb.Helper()
	var v sql.NullInt64
	err := raw(tb, db).QueryRow(`SELECT MAX(version_id) FROM goose_db_version`).Scan(&v)
	if err != nil && !strings.Contains(err.Error(), "goose_db_version") {
		tb.Fatalf("read the migration version: %v", err)
	}
	return v.Int64
}

// A migrated copy is at the version that migrating from scratch reaches,
// and what one copy holds no other copy sees: tests stay isolated.
func TestMigratedCopiesAreCurrentAndIsolated(t *testing.T) {
	t.Parallel()
	for _, e := range dbtest.Engines {
		t.Run(string(e), func(t *testing.T) {
			t.Parallel()
			scratch := dbtest.New(t, e)
			if v := version(t, scratch); v != 0 {
				t.Fatalf("New is at version %d, want an empty database", v)
			}
			open(t, scratch)
			want := version(t, scratch)
			a, b := dbtest.Migrated(t, e), dbtest.Migrated(t, e)
			if a == b {
				t.Fatalf("two tests got the same database %+v", a)
			}
			for _, db := range []dbtest.DB{a, b} {
				if got := version(t, db); got != want || want == 0 {
					t.Fatalf("a migrated copy is at version %d, migrating from scratch reaches %d", got, want)
				}
			}
			if _, err := raw(t, a).Exec(`INSERT INTO customers (id, name, created_at) VALUES ('64000000-0000-4000-8000-000000000001', 'Only in a', 0)`); err != nil {
				t.Fatal(err)
			}
			for db, want := range map[dbtest.DB]int{a: 1, b: 0} {
				var n int
				if err := raw(t, db).QueryRow(`SELECT COUNT(*) FROM customers`).Scan(&n); err != nil || n != want {
					t.Fatalf("%+v holds %d customers (%v), want %d", db, n, err, want)
				}
			}
			open(t, b) // the application's start on a copy: its Migrate finds nothing to do
		})
	}
}

// BenchmarkSetup is the database set-up and tear-down of one test: an
// empty database migrated from scratch (as every test did) against a copy
// of the migrated template, each opened and migrated as the application
// does at start, closed, and dropped or reset as at the test's end.
func BenchmarkSetup(b *testing.B) {
	for _, e := range dbtest.Engines {
		for _, kind := range []struct {
			name string
			make func(testing.TB, dbtest.Engine) dbtest.DB
		}{{"scratch", dbtest.New}, {"template", dbtest.Migrated}} {
			b.Run(string(e)+"/"+kind.name, func(b *testing.B) {
				dbtest.Migrated(b, e) // the template is built once per binary, not per test
				for b.Loop() {
					one := &testScope{TB: b}
					db := kind.make(one, e)
					s, err := store.Open(context.Background(), store.Options{DatabaseURL: db.DatabaseURL, SQLitePath: db.SQLitePath},
						slog.New(slog.DiscardHandler))
					if err != nil {
						b.Fatal(err)
					}
					if err := s.Migrate(context.Background()); err != nil {
						b.Fatal(err)
					}
					if err := s.Close(); err != nil {
						b.Fatal(err)
					}
					one.end()
				}
			})
		}
	}
}

// testScope stands for one test inside a benchmark's loop: its clean-ups
// run at end.
type testScope struct {
	testing.TB
	cleanups []func()
}

func (s *testScope) Cleanup(f func()) { s.cleanups = append(s.cleanups, f) }

func (s *testScope) end() {
	for _, f := range slices.Backward(s.cleanups) {
		f()
	}
}
