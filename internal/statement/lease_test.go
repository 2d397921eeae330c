package statement

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
)

// leaseInstance is one instance's folder with its renewal ticked by hand.
type leaseInstance struct {
	*Folder
	tick    chan time.Time
	renewed chan struct{}
}

// newLeaseInstance watches dir with the default lease and renewal, on clk,
// importing with apply.
func newLeaseInstance(t *testing.T, dir string, clk clock.Clock, apply func(context.Context, string, io.ReadSeeker) (Summary, error)) leaseInstance {
	t.Helper()
	f, err := NewFolder(nil, FolderConfig{Dir: dir}, clk, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	in := leaseInstance{Folder: f, tick: make(chan time.Time), renewed: make(chan struct{}, 100)}
	f.apply = apply
	f.ticks = func(time.Duration) (<-chan time.Time, func()) { return in.tick, func() {} }
	f.renewed = func() { in.renewed <- struct{}{} }
	return in
}

// TestStatementsFolderLease checks the folder's claim is a short lease
// renewed while the import runs: a live import that runs for four leases
// keeps its file from another instance, a dead instance's claim is taken
// back once the 15s lease is over (not before), and a holder that finds
// its claim taken back cancels its import, so the file is imported once.
func TestStatementsFolderLease(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC))
	dir := t.TempDir()
	ctx := context.Background()
	started, release := make(chan string, 1), make(chan struct{})
	slow := func(ctx context.Context, name string, _ io.ReadSeeker) (Summary, error) {
		started <- name
		select {
		case <-release:
			return Summary{}, nil
		case <-ctx.Done():
			return Summary{}, ctx.Err()
		}
	}
	var imported []string
	quick := func(_ context.Context, name string, _ io.ReadSeeker) (Summary, error) {
		imported = append(imported, name)
		return Summary{}, nil
	}
	one, two := newLeaseInstance(t, dir, clk, slow), newLeaseInstance(t, dir, clk, quick)
	if one.cfg.Lease != 15*time.Second || one.cfg.Renew != 5*time.Second {
		t.Fatalf("defaults: lease %s, renewal %s", one.cfg.Lease, one.cfg.Renew)
	}
	drop := func(path string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, path), []byte("<Document/>"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	scan := func(in leaseInstance) chan error {
		out := make(chan error, 1)
		go func() {
			_, err := in.Scan(ctx)
			out <- err
		}()
		return out
	}
	inProcessing := func() int {
		t.Helper()
		entries, err := os.ReadDir(filepath.Join(dir, processingDir))
		if err != nil {
			t.Fatal(err)
		}
		return len(entries)
	}

	// A live import that runs long keeps its claim.
	drop("long.xml")
	oneDone := scan(one)
	<-started
	for range 12 { // a minute: four leases
		clk.Advance(5 * time.Second)
		one.tick <- clk.Now()
		<-one.renewed
		if n, err := two.Scan(ctx); err != nil || n != 0 || inProcessing() != 1 {
			t.Fatalf("while held: %d, %v, %d in processing/", n, err, inProcessing())
		}
	}
	close(release)
	if err := <-oneDone; err != nil || len(imported) != 0 {
		t.Fatalf("the long import: %v; the other instance imported %v", err, imported)
	}
	if _, err := os.Stat(filepath.Join(dir, doneDir, "long.xml")); err != nil {
		t.Fatal(err)
	}

	// A dead instance's claim is taken back after 15s, not before.
	drop(filepath.Join(processingDir, "dead.xml.0123456789abcdef.claim"))
	if err := os.Chtimes(filepath.Join(dir, processingDir, "dead.xml.0123456789abcdef.claim"), clk.Now(), clk.Now()); err != nil {
		t.Fatal(err)
	}
	clk.Advance(14 * time.Second)
	if n, err := two.Scan(ctx); err != nil || n != 0 || inProcessing() != 1 {
		t.Fatalf("within the lease: %d, %v", n, err)
	}
	clk.Advance(time.Second)
	if n, err := two.Scan(ctx); err != nil || n != 1 || len(imported) != 1 || imported[0] != "dead.xml" {
		t.Fatalf("after the lease: %d, %v, imported %v", n, err, imported)
	}

	// A holder that stalled past its lease finds its claim taken back at
	// its next renewal and cancels its import: the file is imported once.
	started, release = make(chan string, 1), make(chan struct{})
	drop("stalled.xml")
	oneDone = scan(one)
	<-started
	clk.Advance(15 * time.Second)
	if n, err := two.Scan(ctx); err != nil || n != 1 || imported[1] != "stalled.xml" {
		t.Fatalf("taking back the stalled claim: %d, %v, imported %v", n, err, imported)
	}
	one.tick <- clk.Now()
	if err := <-oneDone; err == nil {
		t.Fatal("the stalled holder's import went on after its claim was taken back")
	}
	if _, err := os.Stat(filepath.Join(dir, doneDir, "stalled.xml.1")); err == nil {
		t.Fatal("the stalled file was moved to done/ twice")
	}
}
