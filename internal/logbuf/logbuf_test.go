package logbuf

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// sink is an io.Writer that records what reaches it.
type sink struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *sink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestLinesWaitForATickAFlushOrClose(t *testing.T) {
	t.Parallel()
	var out sink
	ticks := make(chan time.Time)
	w := newWriter(&out, ticks)
	t.Cleanup(func() { _ = w.Close() })
	if _, err := w.Write([]byte("one\n")); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "" {
		t.Fatalf("written before a flush: %q", got)
	}
	ticks <- time.Time{} // taken by the loop, which flushes before it takes the next
	ticks <- time.Time{}
	if got := out.String(); got != "one\n" {
		t.Fatalf("after a tick: %q, want %q", got, "one\n")
	}
	_, _ = w.Write([]byte("two\n"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "one\ntwo\n" {
		t.Fatalf("after Close: %q", got)
	}
}

func TestAFullBufferIsWrittenAtOnce(t *testing.T) {
	t.Parallel()
	var out sink
	w := newWriter(&out, nil)
	t.Cleanup(func() { _ = w.Close() })
	line := strings.Repeat("x", 1023) + "\n"
	for range Size/len(line) + 1 {
		_, _ = w.Write([]byte(line))
	}
	if n := len(out.String()); n < Size {
		t.Fatalf("%d bytes written after more than %d were buffered", n, Size)
	}
}

func TestWarningsFlushEveryLineBeforeThem(t *testing.T) {
	t.Parallel()
	var out sink
	w := newWriter(&out, nil)
	t.Cleanup(func() { _ = w.Close() })
	log := slog.New(w.Handler(slog.NewTextHandler(w, nil))).With("app", "x").WithGroup("g")
	log.Info("request")
	if got := out.String(); got != "" {
		t.Fatalf("an INFO line was written at once: %q", got)
	}
	log.Warn("trouble")
	got := out.String()
	if !strings.Contains(got, "msg=request") || !strings.Contains(got, "msg=trouble") {
		t.Fatalf("after a warning: %q, want both lines", got)
	}
}

func TestNewFlushesOnItsInterval(t *testing.T) {
	t.Parallel()
	var out sink
	w := New(&out, time.Hour)
	_, _ = w.Write([]byte("line\n"))
	if got := out.String(); got != "" {
		t.Fatalf("written before the interval: %q", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "line\n" {
		t.Fatalf("after Close: %q", got)
	}
}
