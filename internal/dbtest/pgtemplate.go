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

// pgTemplate is this binary's migrated template schema and the scripts
// that copy it and reset a copy.
type pgTemplate struct {
	id     string // unique per binary
	schema string // templatePrefix + id, in the base database
	plan   schemaPlan
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
	go sweep(base, tpl.id)
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
	if tpl.plan, err = planSchema(ctx, catalog, tpl.schema); err != nil {
		return tpl, fmt.Errorf("write the copy script of %s: %w", tpl.schema, err)
	}
	return tpl, checkCopy(ctx, admin, tpl)
}

// checkCopy copies the template once, resets the copy and compares each
// with the template: a migration that adds a kind of object the scripts do
// not handle fails here, at once, instead of in some test that needs it.
func checkCopy(ctx context.Context, admin *sql.DB, tpl pgTemplate) error {
	check := clonePrefix + tpl.id + "_check"
	if err := copySchema(ctx, admin, tpl, check); err != nil {
		return err
	}
	defer func() { _ = dropSchema(admin, check) }() // best effort; the next binary sweeps it
	if err := sameAsTemplate(ctx, admin, tpl, check); err != nil {
		return fmt.Errorf("teach internal/dbtest/pgclone.go to copy what a migration added: %w", err)
	}
	if err := resetSchema(ctx, admin, tpl, check); err != nil {
		return fmt.Errorf("teach internal/dbtest/pgclone.go to reset what a migration added: %w", err)
	}
	return nil
}

// sameAsTemplate compares schema with the template.
func sameAsTemplate(ctx context.Context, admin *sql.DB, tpl pgTemplate, schema string) error {
	got, err := fingerprint(ctx, admin, schema, tpl.plan.tables)
	if err != nil {
		return fmt.Errorf("describe %s: %w", schema, err)
	}
	if slices.Equal(tpl.plan.want, got) {
		return nil
	}
	var diff []string
	for _, w := range tpl.plan.want {
		if _, found := slices.BinarySearch(got, w); !found {
			diff = append(diff, "missing: "+w)
		}
	}
	for _, g := range got {
		if _, found := slices.BinarySearch(tpl.plan.want, g); !found {
			diff = append(diff, "extra: "+g)
		}
	}
	return fmt.Errorf("%s differs from the template %s:\n%s", schema, tpl.schema, strings.Join(diff, "\n"))
}

// copySchema creates schema and rebuilds the template in it, in one
// transaction.
func copySchema(ctx context.Context, admin *sql.DB, tpl pgTemplate, schema string) error {
	return inSchema(ctx, admin, schema, `CREATE SCHEMA `+schema, tpl.plan.copy)
}

// inSchema runs statements in one transaction whose search path is schema
// (created by the first statement when it does not exist yet).
func inSchema(ctx context.Context, admin *sql.DB, schema, first string, rest ...string) error {
	tx, err := admin.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }() // after Commit, a no-op
	for _, q := range append([]string{first, `SET LOCAL search_path TO ` + schema}, rest...) {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("in %s: %w", schema, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("in %s: commit: %w", schema, err)
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
func sweep(base, own string) {
	ctx, cancel := context.WithTimeout(context.Background(), migrateTimeout)
	defer cancel()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return
	}
	defer admin.Close()
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
