package statement

import (
	"bufio"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/bankrail/bankrail/internal/camt"
)

// spool is the file's reports and entries as the one reading of its XML
// found them, written to a temporary file in a compact form (gob): the
// import reads the XML once, whole, before it writes anything (a file
// that is no statement or no well-formed XML writes nothing), then
// replays what it found from the spool, which decodes several times
// faster than the XML parses. It holds one record in memory at a time.
type spool struct {
	f   *os.File
	w   *bufio.Writer
	enc *gob.Encoder
}

// spoolRecord is one event of the reading: a report (Entry nil) or an
// entry of the last report. An entry's Problem, an error, travels as its
// text.
type spoolRecord struct {
	Report  *camt.Report
	Entry   *camt.Entry
	Problem string
}

// newSpool creates the spool's temporary file in dir ("" for the system's).
func newSpool(dir string) (*spool, error) {
	f, err := os.CreateTemp(dir, "bankrail-statement-*.spool")
	if err != nil {
		return nil, fmt.Errorf("spool the statement: %w", err)
	}
	// Unlinked at once where the system allows it (the file lives on while
	// it is open): a process killed during the import leaves nothing
	// behind. Elsewhere close removes it.
	_ = os.Remove(f.Name())
	w := bufio.NewWriterSize(f, 256<<10)
	return &spool{f: f, w: w, enc: gob.NewEncoder(w)}, nil
}

// Report spools r.
func (s *spool) Report(r camt.Report) error {
	return s.put(spoolRecord{Report: &r})
}

// Entry spools e (its report was spooled before it).
func (s *spool) Entry(_ camt.Report, e camt.Entry) error {
	rec := spoolRecord{Entry: &e}
	if e.Problem != nil {
		rec.Problem, e.Problem = e.Problem.Error(), nil
	}
	return s.put(rec)
}

func (s *spool) put(rec spoolRecord) error {
	if err := s.enc.Encode(rec); err != nil {
		return fmt.Errorf("spool the statement: %w", err)
	}
	return nil
}

// replay hands the spooled records to h in their order: each entry with
// the last report before it, as camt.Read would.
func (s *spool) replay(h camt.Handler) error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("spool the statement: %w", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("read the spooled statement: %w", err)
	}
	dec := gob.NewDecoder(bufio.NewReaderSize(s.f, 256<<10))
	var rep camt.Report
	for {
		var rec spoolRecord
		err := dec.Decode(&rec)
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return fmt.Errorf("read the spooled statement: %w", err)
		case rec.Report != nil:
			rep = *rec.Report
			err = h.Report(rep)
		case rec.Entry != nil:
			e := *rec.Entry
			if rec.Problem != "" {
				e.Problem = errors.New(rec.Problem)
			}
			err = h.Entry(rep, e)
		}
		if err != nil {
			return err
		}
	}
}

// close closes the spool's file and removes it (if newSpool could not).
func (s *spool) close() {
	_ = s.f.Close()           // a temporary file, read to its end or abandoned
	_ = os.Remove(s.f.Name()) // removed already where the system allows it
}
