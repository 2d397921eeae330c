package transfer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
)

// The transfers folder (serve --transfers-dir DIR, bankrail transfers
// export --out DIR): pain.001 files are written to DIR/out, named by their
// MsgId; the bank's pain.002 answers are dropped into DIR/status, and each
// is imported once and moved to DIR/status/done, or to DIR/status/failed
// with NAME.reason.txt beside it.
const (
	OutDir    = "out"
	StatusDir = "status"
	DoneDir   = "done"
	FailedDir = "failed"
)

// Deliver writes every production file not yet delivered to dir (each to
// a temporary name, synced, then renamed: a reader never sees half a
// file) and records its delivery; it returns the files written. A file
// written but not recorded (a crash in between) is written again under
// the same name, which is harmless: its content is the same.
func (s *Service) Deliver(ctx context.Context, dir string) ([]File, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("the transfers folder: %w", err)
	}
	var out []File
	for {
		fs, err := s.transfers.Undelivered(ctx, 100)
		if err != nil {
			return out, err
		}
		for _, f := range fs {
			if err := writeAtomically(filepath.Join(dir, f.Name()), f.Body); err != nil {
				return out, err
			}
			now := clock.Base(s.clock) // basetime: when a file reached the folder is the instance's time
			if err := s.inTx(ctx, func(r Repos) error { return r.Transfers().Delivered(ctx, f.ID, now) }); err != nil {
				return out, err
			}
			f.Body = nil
			out = append(out, f)
		}
		if len(fs) < 100 {
			return out, nil
		}
	}
}

// writeAtomically writes body to path through a temporary file.
func writeAtomically(path string, body []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o640)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, err = f.Write(body)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp) // what failed is the error to report
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ExportAll writes files of every queued transfer (several when there are
// more than Config.MaxPerFile) and returns them.
func (s *Service) ExportAll(ctx context.Context) ([]File, error) {
	var out []File
	for {
		f, err := s.Export(ctx, "")
		if errors.Is(err, ErrNoFile) {
			return out, nil
		} else if err != nil {
			return out, err
		}
		out = append(out, f)
	}
}

// ImportFolder imports every file in dir/status (not in its
// subfolders), oldest name first, and moves each to done or to failed
// with the reason beside it. It returns the summaries of the imported
// ones.
func (s *Service) ImportFolder(ctx context.Context, dir string) ([]Summary, error) {
	in := filepath.Join(dir, StatusDir)
	for _, d := range []string{in, filepath.Join(in, DoneDir), filepath.Join(in, FailedDir)} {
		if err := os.MkdirAll(d, 0o750); err != nil {
			return nil, fmt.Errorf("the status folder: %w", err)
		}
	}
	entries, err := os.ReadDir(in)
	if err != nil {
		return nil, fmt.Errorf("the status folder: %w", err)
	}
	var out []Summary
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") || strings.HasSuffix(e.Name(), ".tmp") {
			continue
		}
		path := filepath.Join(in, e.Name())
		body, err := os.ReadFile(path)
		if err != nil {
			return out, fmt.Errorf("read %s: %w", path, err)
		}
		sum, err := s.Apply(ctx, body)
		if err != nil {
			if !errs.Is(err, errs.ValidationFailure) {
				return out, err // not the file's fault (the database, a stop): try it again next time
			}
			s.log.Warn("bank status file refused", "file", path, "error", err)
			reason := filepath.Join(in, FailedDir, e.Name()+".reason.txt")
			if werr := os.WriteFile(reason, []byte(err.Error()+"\n"), 0o640); werr != nil {
				return out, werr
			}
			if merr := os.Rename(path, filepath.Join(in, FailedDir, e.Name())); merr != nil {
				return out, merr
			}
			continue
		}
		if err := os.Rename(path, filepath.Join(in, DoneDir, e.Name())); err != nil {
			return out, err
		}
		out = append(out, sum)
	}
	return out, nil
}

// Folder is the worker of serve --transfers-dir: every Interval it writes
// the queued transfers into files in DIR/out and imports the answers in
// DIR/status.
type Folder struct {
	Service  *Service
	Dir      string
	Interval time.Duration
}

// Tick runs one round: export, deliver, import.
func (f Folder) Tick(ctx context.Context) error {
	if _, err := f.Service.ExportAll(ctx); err != nil {
		return err
	}
	if _, err := f.Service.Deliver(ctx, filepath.Join(f.Dir, OutDir)); err != nil {
		return err
	}
	_, err := f.Service.ImportFolder(ctx, f.Dir)
	return err
}
