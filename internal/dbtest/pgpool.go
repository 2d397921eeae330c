package dbtest

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"
)

// pgFree holds the binary's copies that tests have finished with, reset to
// the template's state: the next test takes one instead of copying the
// template again (a copy, and its drop, is some 180 relations created and
// removed; a reset is a DELETE per table). When the binary ends they are
// left to the next binary's sweep.
var pgFree struct {
	mu      sync.Mutex
	schemas []string
}

// takeSchema returns a reset copy of the template, or a new one.
func takeSchema(ctx context.Context, admin *sql.DB, tpl pgTemplate) (string, error) {
	pgFree.mu.Lock()
	if n := len(pgFree.schemas); n > 0 {
		schema := pgFree.schemas[n-1]
		pgFree.schemas = pgFree.schemas[:n-1]
		pgFree.mu.Unlock()
		return schema, nil
	}
	pgFree.mu.Unlock()
	schema := clonePrefix + tpl.id + "_" + randomHex(6)
	return schema, copySchema(ctx, admin, tpl, schema)
}

// releaseSchema resets a test's copy and keeps it for the next test, or,
// when it cannot be brought back to the template's state (a connection
// still open to it, a change to its tables), drops it.
func releaseSchema(admin *sql.DB, tpl pgTemplate, schema string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := resetSchema(ctx, admin, tpl, schema)
	if err == nil {
		pgFree.mu.Lock()
		pgFree.schemas = append(pgFree.schemas, schema)
		pgFree.mu.Unlock()
		return nil
	}
	// Those a test left connected would keep the drop waiting.
	_, _ = admin.ExecContext(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, schema)
	if dropErr := dropSchema(admin, schema); dropErr != nil {
		return fmt.Errorf("%w; then drop: %w", err, dropErr)
	}
	return nil
}

// resetSchema brings a copy back to the template's state: once no session
// uses it any more, its rows deleted and the template's put back, then
// compared with the template.
func resetSchema(ctx context.Context, admin *sql.DB, tpl pgTemplate, schema string) error {
	// A test's sessions name themselves after its schema (the URL's
	// application_name); a closed one may take a moment to end.
	for wait := 0; ; wait++ {
		open, err := strs(ctx, admin, `SELECT pid::text FROM pg_stat_activity WHERE application_name = $1`, schema)
		if err != nil {
			return fmt.Errorf("look for sessions on %s: %w", schema, err)
		}
		if len(open) == 0 {
			break
		}
		if wait == 40 {
			return fmt.Errorf("%d sessions are still open on %s after the test", len(open), schema)
		}
		time.Sleep(25 * time.Millisecond) // the server ends a closed session on its own time
	}
	if err := inSchema(ctx, admin, schema, `SET LOCAL lock_timeout = '10s'`, tpl.plan.reset); err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	return sameAsTemplate(ctx, admin, tpl, schema)
}
