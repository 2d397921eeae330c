package dbtest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// pgTemplate is this binary's migrated template schema and the script that
// copies it.
type pgTemplate struct {
	id     string // unique per binary
	schema string // templatePrefix + id, in the base database
	script string // rebuilds the template in the current schema (cloneScript)
}

// pgTemplates holds the binary's template, built by the first test that
// asks.
var pgTemplates struct {
	mu    sync.Mutex
	built bool
	tpl   pgTemplate
	err   error
	// holder keeps, for the binary's lifetime, a session named after the
	// template's id (application_name): the sign, server-wide, that its
	// schemas are in use. It is never closed; the binary's exit ends it.
	holder *sql.Conn
}

// postgresTemplate returns the binary's template, building it once.
func postgresTemplate(t testing.TB, base string) pgTemplate {
	t.Helper()
	p := &pgTemplates
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.built {
		p.built = true
		p.tpl, p.err = buildPostgresTemplate(base)
	}
	if p.err != nil {
		t.Fatalf("migrated PostgreSQL template: %v", p.err)
	}
	return p.tpl
}

// buildPostgresTemplate names the binary's id, sweeps away what ended
// binaries left, migrates the template schema, writes its copy script and
// checks, on one copy, that the script copies everything.
func buildPostgresTemplate(base string) (tpl pgTemplate, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), migrateTimeout)
	defer cancel()
	tpl.id = randomHex(6)
	tpl.schema = templatePrefix + tpl.id
	// The holder connects before the template exists, so that no other
	// binary's sweep takes the template for an ended binary's.
	holderDB, err := sql.Open("pgx", withParam(base, "application_name", holderName(tpl.id)))
	if err != nil {
		return tpl, fmt.Errorf("open postgres: %w", err)
	}
	if pgTemplates.holder, err = holderDB.Conn(ctx); err != nil {
		holderDB.Close()
		return tpl, fmt.Errorf("connect: %w", err)
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return tpl, fmt.Errorf("open postgres: %w", err)
	}
	defer admin.Close()
	sweep(ctx, admin, tpl.id)
	if _, err := admin.ExecContext(ctx, `CREATE SCHEMA `+tpl.schema); err != nil {
		return tpl, fmt.Errorf("create %s: %w", tpl.schema, err)
	}
	// Not dropped when the binary ends (it has no hook for that): the next
	// binary's sweep drops it.
	inTpl := DB{Engine: Postgres, DatabaseURL: withParam(base, "search_path", tpl.schema)}
	if err := migrate(ctx, inTpl); err != nil {
		return tpl, fmt.Errorf("migrate %s: %w", tpl.schema, err)
	}
	catalog, err := sql.Open("pgx", inTpl.DatabaseURL)
	if err != nil {
		return tpl, fmt.Errorf("open postgres: %w", err)
	}
	defer catalog.Close()
	if tpl.script, err = cloneScript(ctx, catalog, tpl.schema); err != nil {
		return tpl, fmt.Errorf("write the copy script of %s: %w", tpl.schema, err)
	}
	return tpl, checkCopy(ctx, admin, catalog, tpl)
}

// checkCopy copies the template once and compares the two: a migration
// that adds a kind of object cloneScript does not copy fails here, at once,
// instead of in some test that needs it.
func checkCopy(ctx context.Context, admin *sql.DB, catalog *sql.DB, tpl pgTemplate) error {
	check := clonePrefix + tpl.id + "_check"
	if err := copySchema(ctx, admin, tpl, check); err != nil {
		return err
	}
	defer func() { _ = dropSchema(admin, check) }() // best effort; the next binary sweeps it
	want, err := fingerprint(ctx, catalog, tpl.schema)
	if err != nil {
		return fmt.Errorf("describe %s: %w", tpl.schema, err)
	}
	got, err := fingerprint(ctx, catalog, check)
	if err != nil {
		return fmt.Errorf("describe %s: %w", check, err)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		var diff []string
		for _, w := range want {
			if !slices.Contains(got, w) {
				diff = append(diff, "missing: "+w)
			}
		}
		for _, g := range got {
			if !slices.Contains(want, g) {
				diff = append(diff, "extra: "+g)
			}
		}
		return fmt.Errorf("a copy of the migrated schema differs from it; teach internal/dbtest/pgclone.go to copy what a migration added:\n%s",
			strings.Join(diff, "\n"))
	}
	return nil
}

// copySchema creates schema and rebuilds the template in it, in one
// transaction.
func copySchema(ctx context.Context, admin *sql.DB, tpl pgTemplate, schema string) error {
	tx, err := admin.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }() // after Commit, a no-op
	for _, q := range []string{`CREATE SCHEMA ` + schema, `SET LOCAL search_path TO ` + schema, tpl.script} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("copy %s into %s: %w", tpl.schema, schema, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("copy %s into %s: %w", tpl.schema, schema, err)
	}
	return nil
}

// dropSchema drops schema and everything in it.
func dropSchema(admin *sql.DB, schema string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := admin.ExecContext(ctx, `DROP SCHEMA IF EXISTS `+schema+` CASCADE`)
	return err
}

// sweep drops the template schemas, and their copies, of binaries that
// ended (a binary has no hook at its end; a killed one leaves its copies
// too). A binary whose holder session is gone has ended. Sweeping is best
// effort: what fails now, the next binary tries again.
func sweep(ctx context.Context, admin *sql.DB, own string) {
	names, err := strs(ctx, admin, `SELECT nspname FROM pg_namespace
		WHERE nspname LIKE 'bt\_t\_%' OR nspname LIKE 'bt\_c\_%' ORDER BY nspname`)
	if err != nil {
		return
	}
	byID := map[string][]string{}
	for _, name := range names {
		id, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(name, templatePrefix), clonePrefix), "_")
		byID[id] = append(byID[id], name)
	}
	for id, names := range byID {
		if id == own {
			continue
		}
		alive, err := strs(ctx, admin, `SELECT pid::text FROM pg_stat_activity WHERE application_name = $1`, holderName(id))
		if err != nil || len(alive) > 0 {
			continue
		}
		for _, name := range names {
			_ = dropSchema(admin, name) // best effort; the next binary tries again
		}
	}
}

// holderName is the application_name of the session that marks a binary's
// template id as in use.
func holderName(id string) string { return "bankrail-dbtest-" + id }

// withParam is base with the connection parameter key set to value.
func withParam(base, key, value string) string {
	u, _ := url.Parse(base) // PostgresURL has connected with it
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}
