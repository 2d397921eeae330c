package statement

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/bankrail/bankrail/internal/camt"
)

// record keeps what a camt.Handler is given, an entry's Problem as text.
type record struct {
	events []string
}

func (r *record) Report(rep camt.Report) error {
	closing := "none"
	if rep.Closing != nil {
		closing = fmt.Sprintf("%+v", *rep.Closing)
	}
	rep.Closing = nil
	r.events = append(r.events, fmt.Sprintf("report %+v closing %s", rep, closing))
	return nil
}

func (r *record) Entry(rep camt.Report, e camt.Entry) error {
	problem := ""
	if e.Problem != nil {
		problem, e.Problem = e.Problem.Error(), nil
	}
	r.events = append(r.events, fmt.Sprintf("entry of %s: %+v problem %q", rep.Account(), e, problem))
	return nil
}

// The spool replays exactly what the reading of the file handed it: each
// version's files of both messages (several statements, batches, returns,
// closing balances), and entries with problems, whose text it keeps; its
// file is gone when it is closed.
func TestSpoolReplaysWhatTheReaderFound(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "camt", "testdata", "*.xml"))
	if err != nil || len(files) < 14 {
		t.Fatalf("test files %v: %v", files, err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			want := &record{}
			sp, err := newSpool(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			read := func(h camt.Handler) {
				t.Helper()
				f, err := os.Open(file)
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = f.Close() }() // read only
				if _, err := camt.Read(f, h); err != nil {
					t.Fatal(err)
				}
			}
			read(want)
			read(sp)
			extra := camt.Report{IBAN: "DE02"}
			if err := sp.Report(extra); err != nil {
				t.Fatal(err)
			}
			_ = want.Report(extra)
			if err := sp.Entry(extra, camt.Entry{Index: 99, Problem: fmt.Errorf("entry 99: bad")}); err != nil {
				t.Fatal(err)
			}
			want.events = append(want.events, fmt.Sprintf("entry of %s: %+v problem %q", "DE02", camt.Entry{Index: 99}, "entry 99: bad"))
			got := &record{}
			if err := sp.replay(got); err != nil {
				t.Fatal(err)
			}
			if len(got.events) < 3 || !reflect.DeepEqual(got.events, want.events) {
				t.Fatalf("replayed\n%q\nwant\n%q", got.events, want.events)
			}
			name := sp.f.Name()
			sp.close()
			if _, err := os.Stat(name); !os.IsNotExist(err) {
				t.Fatalf("the spool's file is still there: %v", err)
			}
		})
	}
}
