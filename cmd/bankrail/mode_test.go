package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/dbtest"
)

// serveUntilListening runs serve with args until it exits or, once it has
// started (its log says "listening"), stops it as a signal would; it
// returns the exit code and the error output. It waits for the start, not
// a fixed time, which a busy machine's start may outlast (two minutes at
// most).
func serveUntilListening(t *testing.T, args ...string) (code int, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), &out, &errOut) }()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case code = <-done:
			return code, errOut.String()
		case <-tick.C:
			if strings.Contains(errOut.String(), "msg=listening") || strings.Contains(out.String(), "msg=listening") {
				cancel()
			}
		}
	}
}

// TestTheDatabaseRemembersItsMode: the first serve (or migrate --mode)
// records the mode; a sandbox refuses a production database and the reverse,
// before it changes anything; the administration commands take the
// database's mode (and so its URL guard) when --mode is not given; migrate
// --convert-to changes the mode deliberately (issue 30, item 2).
func TestTheDatabaseRemembersItsMode(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, db dbtest.DB) {
		storage := storageOf(t, db)
		cmd := func(wantCode int, args ...string) (string, string) {
			t.Helper()
			code, out, errOut := runCmd(t, append(args, storage...)...)
			if code != wantCode {
				t.Fatalf("%v: exit %d, want %d\n%s%s", args, code, wantCode, out, errOut)
			}
			return out, errOut
		}
		if out, _ := cmd(0, "migrate", "--mode", "production"); !strings.Contains(out, "mode: production") {
			t.Fatalf("migrate --mode production: %s", out)
		}
		// A sandbox (the default) refuses the production database: no demo
		// merchant, no reset over production data.
		code, errOut := serveUntilListening(t, storage...)
		if code != 1 || !strings.Contains(errOut, "this is a production database, and a sandbox instance refuses it") ||
			!strings.Contains(errOut, "--convert-to sandbox") {
			t.Fatalf("sandbox serve on a production database: exit %d\n%s", code, errOut)
		}
		if _, errOut := cmd(1, "migrate", "--mode", "sandbox"); !strings.Contains(errOut, "this is a production database") {
			t.Fatalf("migrate --mode sandbox: %s", errOut)
		}
		// An administration command without --mode guards URLs as production does.
		const shop = "7b000000-0000-4000-8000-000000000056"
		cmd(0, "customer", "create", "--name", "Mode Shop", "--id", shop)
		if _, errOut := cmd(1, "application", "create", "--customer", shop, "--client-id", "mode-client",
			"--notification-url", "http://127.0.0.1:9000/n"); !strings.Contains(errOut, "loopback") {
			t.Fatalf("a loopback URL on a production database: %s", errOut)
		}
		if _, errOut := cmd(1, "customer", "list", "--mode", "sandbox"); !strings.Contains(errOut, "this is a production database") {
			t.Fatalf("customer list --mode sandbox: %s", errOut)
		}
		// The deliberate conversion.
		if out, _ := cmd(0, "migrate", "--convert-to", "sandbox"); !strings.Contains(out, "database converted: production -> sandbox") {
			t.Fatalf("migrate --convert-to sandbox: %s", out)
		}
		cmd(0, "application", "create", "--customer", shop, "--client-id", "mode-client", "--notification-url", "http://127.0.0.1:9000/n")
		code, errOut = serveUntilListening(t, append(storage, "--mode", "production")...)
		if code != 1 || !strings.Contains(errOut, "this is a sandbox database, and a production instance refuses it") {
			t.Fatalf("production serve on a sandbox database: exit %d\n%s", code, errOut)
		}
		if out, _ := cmd(0, "migrate"); !strings.Contains(out, "mode: sandbox") {
			t.Fatalf("migrate: %s", out)
		}
	})
}

// TestServeRecordsItsModeInANewDatabase: a database no mode was given to
// records the first serve's, and refuses the other mode afterwards.
func TestServeRecordsItsModeInANewDatabase(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, db dbtest.DB) {
		storage := storageOf(t, db)
		if code, out, errOut := runCmd(t, append([]string{"migrate"}, storage...)...); code != 0 || !strings.Contains(out, "none recorded yet") {
			t.Fatalf("migrate: exit %d %s%s", code, out, errOut)
		}
		if code, errOut := serveUntilListening(t, storage...); code != 0 {
			t.Fatalf("the first serve: exit %d\n%s", code, errOut)
		}
		if code, out, errOut := runCmd(t, append([]string{"migrate"}, storage...)...); code != 0 || !strings.Contains(out, "mode: sandbox") {
			t.Fatalf("migrate after serve: exit %d %s%s", code, out, errOut)
		}
		if code, errOut := serveUntilListening(t, append(storage, "--mode", "production")...); code != 1 ||
			!strings.Contains(errOut, "this is a sandbox database") {
			t.Fatalf("production serve after a sandbox: exit %d\n%s", code, errOut)
		}
	})
}

// storageOf is the storage flags of db, with no --mode.
func storageOf(t *testing.T, db dbtest.DB) []string {
	t.Helper()
	storage := []string{"--data-dir", db.DataDir, "--database-url", db.DatabaseURL}
	if db.Engine == dbtest.Postgres {
		storage[1] = t.TempDir()
	}
	return storage
}
