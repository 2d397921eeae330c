package app_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/camt/camttest"
	"github.com/bankrail/bankrail/internal/statement"
)

// The watched folder imports each dropped file once and moves it to done/
// with its summary beside it, or to failed/ with the reason; a file being
// written (.part) waits; two folders over the same directory (two
// instances) import each file once; a file left in processing/ by a dead
// instance is taken back when its lease runs out.
func TestStatementsFolder(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		a := env.App
		acct := openEUR(t, a, "folder")
		dir := t.TempDir()
		cfg := statement.FolderConfig{Dir: dir, Lease: time.Minute}
		one, err := statement.NewFolder(a.Statements(), cfg, env.Clock, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		two, err := statement.NewFolder(a.Statements(), cfg, env.Clock, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		doc := func(ref string) string {
			return camttest.String(54, 8, ref, camttest.Stmt{IBAN: acct.IBAN, Entries: []camttest.Entry{{AcctSvcrRef: ref, Minor: 100, Credit: true}}})
		}
		drop := func(name, body string) {
			t.Helper()
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		drop("a.xml", doc("A"))
		drop("b.xml", doc("B"))
		drop("c.xml", doc("A")) // the same entry again
		drop("bad.xml", "<Document>")
		drop("d.xml.part", doc("D"))
		ctx := context.Background()
		done := make(chan int, 2)
		for _, f := range []*statement.Folder{one, two} {
			go func() {
				n, err := f.Scan(ctx)
				if err != nil {
					t.Error(err)
				}
				done <- n
			}()
		}
		if n := <-done + <-done; n != 4 {
			t.Fatalf("the two instances took %d files, want 4", n)
		}
		for _, name := range []string{"done/a.xml", "done/a.xml.summary.json", "done/b.xml", "done/c.xml", "failed/bad.xml", "failed/bad.xml.reason.txt", "d.xml.part"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		reason, _ := os.ReadFile(filepath.Join(dir, "failed", "bad.xml.reason.txt"))
		if !strings.Contains(string(reason), "not well-formed XML") {
			t.Errorf("reason %q", reason)
		}
		var sum statement.Summary
		body, _ := os.ReadFile(filepath.Join(dir, "done", "c.xml.summary.json"))
		if err := json.Unmarshal(body, &sum); err != nil {
			t.Fatal(err)
		}
		if got := booked(t, a, acct.ID); got != 200 {
			t.Fatalf("ledger %d, want 200 (A once, B)", got)
		}
		// A file an instance claimed and died with.
		if err := os.WriteFile(filepath.Join(dir, "processing", "e.xml"), []byte(doc("E")), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(filepath.Join(dir, "processing", "e.xml"), env.Clock.Now(), env.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		if n, err := one.Scan(ctx); err != nil || n != 0 {
			t.Fatalf("within the lease: %d, %v", n, err)
		}
		env.Clock.Advance(2 * time.Minute)
		if n, err := one.Scan(ctx); err != nil || n != 1 {
			t.Fatalf("after the lease: %d, %v", n, err)
		}
		if got := booked(t, a, acct.ID); got != 300 {
			t.Fatalf("ledger %d, want 300", got)
		}
	})
}
