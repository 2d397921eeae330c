package dbtest

import (
	"context"
	"database/sql"
	"sync"
	"testing"
	"time"
)

// Names of the schemas this package creates in the base database: a
// binary's template is bt_t_<id>, its tests' copies bt_c_<id>_<random>
// (New's empty schemas are bt_<random>). Ids are unique per binary, so the
// binaries that go test runs side by side share the server without
// meeting.
const (
	templatePrefix = "bt_t_"
	clonePrefix    = "bt_c_"
)

// clonePostgres gives the test a schema of its own at the template's
// state: a copy of this binary's migrated template schema, new or reset
// after an earlier test. When the test ends it is reset for the next test
// (or dropped).
func clonePostgres(t testing.TB, base string) DB {
	t.Helper()
	tpl := postgresTemplate(t, base)
	admin := openAdmin(t, base)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	schema, err := takeSchema(ctx, admin, tpl)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := releaseSchema(admin, tpl, schema); err != nil {
			t.Logf("test schema %s: %v", schema, err)
		}
	})
	u := withParam(base, "search_path", schema)
	return DB{Engine: Postgres, DatabaseURL: withParam(u, "application_name", schema)}
}

// newSchema makes a fresh, empty schema of the base database the test's
// own, dropped when the test ends.
func newSchema(t testing.TB, base string) DB {
	t.Helper()
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
	return DB{Engine: Postgres, DatabaseURL: withParam(base, "search_path", schema)}
}

var (
	adminMu sync.Mutex
	admins  = map[string]*sql.DB{}
)

// openAdmin is the pool, shared by the binary's tests, that creates and
// drops their databases and schemas.
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
