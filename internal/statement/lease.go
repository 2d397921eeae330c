package statement

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
)

// A claim of the folder is the file renamed into processing/ as
// NAME.<16 hex digits>.claim, a name of that claim alone: its mtime is the
// lease, on the instance's base clock, which the holder renews every
// FolderConfig.Renew while the import runs. Another instance takes the
// file back (renames it to NAME in the folder) once the mtime is a lease
// old: its holder died or stalled. A holder whose renewal finds its claim
// gone has lost it: its import is cancelled (its batch in flight rolls
// back; the import is idempotent by entry, so what it committed is not
// booked twice) and the file's next claim imports it. The claim's own name is what tells
// "gone" from "taken back and claimed again by another instance", which
// a shared name could not.

// claimSuffix matches the part of a claimed file's name after NAME.
var claimSuffix = regexp.MustCompile(`\.[0-9a-f]{16}\.claim$`)

// claim renames the folder's file name into processing/ under a claim
// name of its own and starts its lease; ok is false when another instance
// claimed it first.
func (f *Folder) claim(name string) (claimed string, ok bool, err error) {
	var token [8]byte
	_, _ = rand.Read(token[:]) // crypto/rand.Read never fails (Go 1.24+)
	claimed = filepath.Join(f.cfg.Dir, processingDir, name+"."+hex.EncodeToString(token[:])+".claim")
	if err := os.Rename(filepath.Join(f.cfg.Dir, name), claimed); err != nil {
		return "", false, nil // the rename lost to another instance's: not an error
	}
	if err := f.renew(claimed); err != nil {
		return "", false, fmt.Errorf("statements folder: %w", err)
	}
	return claimed, true, nil
}

// renew sets the claimed file's lease to start now.
func (f *Folder) renew(claimed string) error {
	// basetime: the lease of a claimed file is on the instance's base clock, as every lease
	now := clock.Base(f.clock)
	return os.Chtimes(claimed, now, now)
}

// importHeld imports the claimed file while renewing its claim every
// Renew; it cancels the import when the claim is found lost.
func (f *Folder) importHeld(ctx context.Context, name, claimed string) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	tick, stopTicks := f.ticks(f.cfg.Renew)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			case <-tick:
			}
			err := f.renew(claimed)
			if f.renewed != nil {
				f.renewed()
			}
			switch {
			case errors.Is(err, fs.ErrNotExist):
				f.log.Warn("statement claim lost: another instance took the file back", "file", name)
				cancel(fmt.Errorf("statements folder: the claim of %s was taken back", name))
				return
			case err != nil:
				f.log.Warn("statement claim not renewed", "file", name, "err", err)
			}
		}
	})
	err := f.importFile(ctx, name, claimed)
	close(done)
	stopTicks()
	wg.Wait()
	if cause := context.Cause(ctx); cause != nil && err != nil {
		return fmt.Errorf("%w (%w)", err, cause)
	}
	return err
}

// reclaim gives the files whose lease in processing/ ran out back to the
// folder, under their own names.
func (f *Folder) reclaim() error {
	dir := filepath.Join(f.cfg.Dir, processingDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("statements folder: %w", err)
	}
	// basetime: leases of claimed files are on the instance's base clock
	now := clock.Base(f.clock)
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || now.Sub(info.ModTime()) < f.cfg.Lease {
			continue
		}
		name := claimSuffix.ReplaceAllString(e.Name(), "")
		if err := os.Rename(filepath.Join(dir, e.Name()), filepath.Join(f.cfg.Dir, name)); err == nil {
			f.log.Warn("statement taken back after its lease ran out", "file", name, "lease", f.cfg.Lease)
		}
	}
	return nil
}

// realTicks is a ticker of real time every d.
func realTicks(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}
