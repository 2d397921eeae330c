package statement

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/worker"
)

// FolderConfig are the settings of a watched folder.
type FolderConfig struct {
	Dir      string        // where statement files are dropped (serve --statements-dir)
	Interval time.Duration // how often it is looked at (default 5s)
	// Lease is how long a claimed file in processing/ may go unrenewed
	// before another instance takes it back (its importer died; the import
	// is idempotent by entry, so taking it again is safe). Default 15s.
	Lease time.Duration
	// Renew is how often the instance importing a file renews its claim
	// (touches the claimed file's mtime) while the import runs, so a long
	// import keeps it. Default 5s; at most half the lease.
	Renew time.Duration
}

// Folder subdirectories.
const (
	processingDir = "processing"
	doneDir       = "done"
	failedDir     = "failed"
)

func (c *FolderConfig) validate() error {
	if c.Interval == 0 {
		c.Interval = 5 * time.Second
	}
	if c.Lease == 0 {
		c.Lease = 15 * time.Second
	}
	if c.Renew == 0 {
		c.Renew = 5 * time.Second
	}
	switch {
	case c.Dir == "":
		return errors.New("statements folder: no directory")
	case c.Interval < 10*time.Millisecond || c.Lease < time.Second || c.Renew < 10*time.Millisecond:
		return fmt.Errorf("statements folder: interval %s, lease %s or renewal %s too short", c.Interval, c.Lease, c.Renew)
	case c.Renew > c.Lease/2:
		return fmt.Errorf("statements folder: renewal every %s must be at most half the lease %s", c.Renew, c.Lease)
	}
	for _, d := range []string{c.Dir, filepath.Join(c.Dir, processingDir), filepath.Join(c.Dir, doneDir), filepath.Join(c.Dir, failedDir)} {
		if err := os.MkdirAll(d, 0o750); err != nil {
			return fmt.Errorf("statements folder: %w", err)
		}
	}
	return nil
}

// Folder imports the statement files dropped in a directory (where an
// EBICS or SFTP client puts what the bank sends): each file once, then
// moved to done/ (with its summary beside it, NAME.summary.json) or to
// failed/ (with the reason beside it, NAME.reason.txt). Several instances
// may watch the same directory: a file is claimed by renaming it into
// processing/ under a name of this claim's own, which only one of them
// wins, and the claim is a lease renewed while the import runs (lease.go).
// Files whose name starts with "." or ends with .tmp or .part are being
// written and left alone.
type Folder struct {
	im    *Importer
	cfg   FolderConfig
	clock clock.Clock
	log   *slog.Logger
	tick  *worker.Periodic
	// apply imports one file: im.Apply; tests put a slow import there.
	apply func(ctx context.Context, name string, src io.ReadSeeker) (Summary, error)
	// ticks gives the renewal ticks (a real ticker; tests tick by hand)
	// and renewed, when set, is called after each renewal (tests).
	ticks   func(d time.Duration) (<-chan time.Time, func())
	renewed func()
}

// NewFolder returns the worker of cfg's folder (created if missing).
func NewFolder(im *Importer, cfg FolderConfig, clk clock.Clock, log *slog.Logger) (*Folder, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	f := &Folder{im: im, cfg: cfg, clock: clk, log: log, apply: im.Apply, ticks: realTicks}
	f.tick = worker.NewPeriodic("statements folder", cfg.Interval, log, func(ctx context.Context) error {
		_, err := f.Scan(ctx)
		return err
	})
	return f, nil
}

// Start looks at the folder every interval until Stop.
func (f *Folder) Start(ctx context.Context) { f.tick.Start(ctx) }

// Stop ends the ticks and waits for an import in progress.
func (f *Folder) Stop() { f.tick.Stop() }

// Scan imports every file waiting in the folder now, oldest name first,
// and takes back files whose lease in processing/ ran out; it returns how
// many files it imported or failed.
func (f *Folder) Scan(ctx context.Context) (int, error) {
	if err := f.reclaim(); err != nil {
		return 0, err
	}
	entries, err := os.ReadDir(f.cfg.Dir)
	if err != nil {
		return 0, fmt.Errorf("statements folder: %w", err)
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".tmp") || strings.HasSuffix(name, ".part") {
			continue
		}
		if ctx.Err() != nil {
			return n, ctx.Err()
		}
		claimed, ok, err := f.claim(name)
		if err != nil {
			return n, err
		}
		if !ok {
			continue // another instance claimed it
		}
		if err := f.importHeld(ctx, name, claimed); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// importFile imports the claimed file and moves it on. An error of the
// file's (not a statement, malformed) fails it; an error of the instance
// (the database went away) leaves it in processing/ for the lease to give
// it back.
func (f *Folder) importFile(ctx context.Context, name, claimed string) error {
	file, err := os.Open(claimed)
	if err != nil {
		return fmt.Errorf("statements folder: %w", err)
	}
	sum, err := f.apply(ctx, name, file)
	_ = file.Close() // read only: nothing to lose
	switch {
	case err == nil:
		body, _ := json.MarshalIndent(sum, "", "  ") // a Summary always marshals
		f.log.Info("statement imported", "file", name, "message", sum.Message, "duplicates", sum.Duplicates, "rejected", len(sum.Rejected))
		return f.move(claimed, doneDir, name, ".summary.json", append(body, '\n'))
	case entryFault(err):
		f.log.Warn("statement refused", "file", name, "err", err)
		return f.move(claimed, failedDir, name, ".reason.txt", []byte(err.Error()+"\n"))
	}
	return err
}

// move puts the claimed file into dir (under a new name if one is taken
// there) with a note beside it.
func (f *Folder) move(claimed, dir, name, suffix string, note []byte) error {
	target := filepath.Join(f.cfg.Dir, dir, name)
	for i := 1; exists(target); i++ {
		target = filepath.Join(f.cfg.Dir, dir, fmt.Sprintf("%s.%d", name, i))
	}
	if err := os.WriteFile(target+suffix, note, 0o640); err != nil {
		return fmt.Errorf("statements folder: %w", err)
	}
	if err := os.Rename(claimed, target); err != nil {
		return fmt.Errorf("statements folder: %w", err)
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
