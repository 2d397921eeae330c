package main

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/client"
	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/dbtest"
)

// TestBackupUnderLoadRestoresToBalancedBooks: a backup taken as
// docs/operations.md says (SQLite: VACUUM INTO; PostgreSQL: pg_dump, restored
// with psql into a new database) while payments keep coming in restores to
// a database whose books balance (bankrail ledger verify, exit 0) and that
// holds what was paid before the backup (issue 30, item 9).
func TestBackupUnderLoadRestoresToBalancedBooks(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		env := apptest.NewOn(t, db)
		d := newDevEnv(t, env)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		var made atomic.Int64
		var wg sync.WaitGroup
		scenario := &api.CreatePaymentParams{XServiceTestingScenario: client.Ptr(api.SandboxOutcome("COMPLETED"))}
		for range 3 {
			wg.Go(func() {
				for ctx.Err() == nil {
					if _, err := d.sdk.CreatePayment(ctx, eurPayment(), scenario); err == nil {
						made.Add(1)
					}
				}
			})
		}
		atLeast := func(n int64) {
			apptest.Eventually(t, strconv.FormatInt(n, 10)+" payments made", func() bool { return made.Load() >= n })
		}
		atLeast(5)
		before := made.Load()
		restored := backupAndRestore(t, db) // under load
		atLeast(made.Load() + 5)            // the load went on through the backup
		cancel()
		wg.Wait()

		code, out, errOut := runCmd(t, append([]string{"ledger", "verify"}, restored...)...)
		if code != 0 {
			t.Fatalf("ledger verify of the restored backup: exit %d\n%s%s", code, out, errOut)
		}
		m := regexp.MustCompile(`verified (\d+) accounts, (\d+) entries`).FindStringSubmatch(out)
		if m == nil || m[2] == "0" {
			t.Fatalf("the restored books hold nothing:\n%s", out)
		}
		code, out, errOut = runCmd(t, append([]string{"account", "list"}, restored...)...)
		if code != 0 || !regexp.MustCompile(`[1-9]\d*\.\d\d EUR`).MatchString(out) {
			t.Fatalf("the restored account holds nothing of the %d payments made before the backup: exit %d\n%s%s", before, code, out, errOut)
		}
	})
}

// backupAndRestore backs db up and restores the backup elsewhere, as
// docs/operations.md says, and returns the storage flags of the copy.
func backupAndRestore(t *testing.T, db dbtest.DB) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if db.Engine == dbtest.SQLite {
		dir := t.TempDir()
		live, err := sql.Open("sqlite", "file:"+db.SQLitePath)
		if err != nil {
			t.Fatal(err)
		}
		defer live.Close()
		if _, err := live.ExecContext(ctx, `VACUUM INTO ?`, filepath.Join(dir, "bankrail.db")); err != nil {
			t.Fatalf("VACUUM INTO: %v", err)
		}
		return []string{"--data-dir", dir}
	}
	for _, tool := range []string{"pg_dump", "psql"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("BANKRAIL_REQUIRE_POSTGRES") == "1" {
				t.Fatalf("%s is required to back PostgreSQL up: %v", tool, err)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
	u, err := url.Parse(db.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	schema := u.Query().Get("search_path")
	base := dbtest.PostgresURL(t)
	dump := filepath.Join(t.TempDir(), "bankrail.sql")
	if out, err := exec.CommandContext(ctx, "pg_dump", "--dbname", base, "--schema", schema, "--no-owner", "--file", dump).CombinedOutput(); err != nil {
		t.Fatalf("pg_dump: %v\n%s", err, out)
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := "restore_" + schema
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		t.Fatalf("create the database to restore into: %v", err)
	}
	t.Cleanup(func() {
		a, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer a.Close()
		if _, err := a.ExecContext(context.Background(), `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
			t.Logf("drop %s: %v", name, err)
		}
	})
	target := *u
	target.Path = "/" + name
	plain := target
	plain.RawQuery = ""
	if out, err := exec.CommandContext(ctx, "psql", "--dbname", plain.String(), "--quiet", "--set", "ON_ERROR_STOP=1",
		"--file", dump).CombinedOutput(); err != nil {
		t.Fatalf("psql restore: %v\n%s", err, out)
	}
	return []string{"--data-dir", t.TempDir(), "--database-url", target.String()}
}
