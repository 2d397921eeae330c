// Package logbuf buffers a process's log output: lines are collected in
// memory and written in batches, on a short interval, when the buffer
// fills, at once for a warning or an error, and at shutdown. One write
// system call per request line was most of the access log's cost
// (docs/operations.md, "Access log", for the trade-off: a crash loses at
// most the last interval's INFO lines).
package logbuf

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"sync"
	"time"
)

// Size is the buffer's size: lines beyond it are written at once.
const Size = 64 << 10

// Writer is a buffered io.Writer safe for concurrent use.
type Writer struct {
	mu   sync.Mutex
	buf  *bufio.Writer
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// New buffers w, flushing it every interval until Close.
func New(w io.Writer, interval time.Duration) *Writer {
	t := time.NewTicker(interval)
	b := newWriter(w, t.C)
	go func() {
		<-b.done
		t.Stop()
	}()
	return b
}

// newWriter buffers w, flushing it on every tick until Close.
func newWriter(w io.Writer, ticks <-chan time.Time) *Writer {
	b := &Writer{buf: bufio.NewWriterSize(w, Size), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(b.done)
		for {
			select {
			case <-ticks:
				_ = b.Flush()
			case <-b.stop:
				return
			}
		}
	}()
	return b
}

// Write buffers p.
func (b *Writer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// Flush writes what is buffered.
func (b *Writer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Flush()
}

// Close stops the interval and writes what is buffered. Writes after
// Close are buffered until the next Flush.
func (b *Writer) Close() error {
	b.once.Do(func() { close(b.stop) })
	<-b.done
	return b.Flush()
}

// Handler wraps h, which writes to b, so that a record at level
// slog.LevelWarn or above is written at once, with every line before it.
func (b *Writer) Handler(h slog.Handler) slog.Handler { return flushing{Handler: h, w: b} }

// flushing is a slog.Handler that flushes its Writer after every warning
// or error.
type flushing struct {
	slog.Handler
	w *Writer
}

// Handle passes r on, then flushes for a warning or an error.
func (f flushing) Handle(ctx context.Context, r slog.Record) error {
	err := f.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		if ferr := f.w.Flush(); err == nil {
			err = ferr
		}
	}
	return err
}

// WithAttrs keeps the flushing.
func (f flushing) WithAttrs(attrs []slog.Attr) slog.Handler {
	return flushing{Handler: f.Handler.WithAttrs(attrs), w: f.w}
}

// WithGroup keeps the flushing.
func (f flushing) WithGroup(name string) slog.Handler {
	return flushing{Handler: f.Handler.WithGroup(name), w: f.w}
}
