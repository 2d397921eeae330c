package report

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/bankrail/bankrail/internal/errs"
)

// fileWriter turns CSV records into the stored chunks of one attempt:
// encoding/csv -> (a goroutine) gzip -> pieces of at most size compressed
// bytes, each written as it fills. Scanning and CSV run beside compression
// and storage, so generation uses two cores. Memory stays at one chunk,
// gzip's window and a few 64 KiB blocks in flight.
type fileWriter struct {
	csv    *csv.Writer
	async  *asyncWriter
	gz     *gzip.Writer
	chunks *chunkWriter
	count  *countWriter
	raw    int64 // uncompressed bytes
	stored int64 // compressed bytes
}

const csvBlock = 64 << 10 // bytes of CSV handed to the compressor at once

func newFileWriter(ctx context.Context, repo Repository, id string, attempt, size int) *fileWriter {
	ch := &chunkWriter{ctx: ctx, repo: repo, id: id, attempt: attempt, buf: make([]byte, 0, size)}
	gz, _ := gzip.NewWriterLevel(ch, gzip.BestSpeed) // a valid level: no error
	async := newAsyncWriter(gz, 4, csvBlock)
	cnt := &countWriter{w: async}
	return &fileWriter{csv: csv.NewWriter(bufio.NewWriterSize(cnt, csvBlock)), async: async, gz: gz, chunks: ch, count: cnt}
}

// Abort stops the compressor goroutine of a file that will not be closed
// (generation failed). It is a no-op after Close.
func (f *fileWriter) Abort() { _ = f.async.Close() }

// Close flushes every layer and writes the last chunk.
func (f *fileWriter) Close() error {
	f.csv.Flush()
	if err := f.csv.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	if err := f.async.Close(); err != nil {
		return err
	}
	if err := f.gz.Close(); err != nil {
		return fmt.Errorf("compress: %w", err)
	}
	if err := f.chunks.flush(); err != nil {
		return err
	}
	f.raw, f.stored = f.count.n, f.chunks.total
	return nil
}

// asyncWriter hands what is written to a goroutine that writes it to w,
// through a few buffers: the writer goes on while w works. The first error
// of w is returned by the next Write and by Close.
type asyncWriter struct {
	blocks chan []byte
	free   chan []byte
	done   chan error
	failed atomic.Pointer[error]
	close  sync.Once
	result error
}

func newAsyncWriter(w io.Writer, depth, size int) *asyncWriter {
	a := &asyncWriter{blocks: make(chan []byte, depth), free: make(chan []byte, depth+1), done: make(chan error, 1)}
	for range depth + 1 {
		a.free <- make([]byte, 0, size)
	}
	go func() {
		var err error
		for b := range a.blocks {
			if err == nil {
				if _, err = w.Write(b); err != nil {
					a.failed.Store(&err)
				}
			}
			a.free <- b[:0]
		}
		a.done <- err
	}()
	return a
}

func (a *asyncWriter) Write(p []byte) (int, error) {
	if err := a.failed.Load(); err != nil {
		return 0, *err
	}
	b := append(<-a.free, p...)
	a.blocks <- b
	return len(p), nil
}

// Close waits until every block is written and returns the first error.
func (a *asyncWriter) Close() error {
	a.close.Do(func() {
		close(a.blocks)
		a.result = <-a.done
	})
	return a.result
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// chunkWriter stores what is written in chunks of cap(buf) bytes.
type chunkWriter struct {
	ctx     context.Context
	repo    Repository
	id      string
	attempt int
	seq     int
	buf     []byte
	total   int64
}

func (c *chunkWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		room := cap(c.buf) - len(c.buf)
		take := min(room, len(p))
		c.buf = append(c.buf, p[:take]...)
		p = p[take:]
		if len(c.buf) == cap(c.buf) {
			if err := c.flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

// flush stores the buffered bytes as the next chunk.
func (c *chunkWriter) flush() error {
	if len(c.buf) == 0 {
		return nil
	}
	if err := c.repo.WriteChunk(c.ctx, c.id, c.attempt, c.seq, c.buf); err != nil {
		return fmt.Errorf("store chunk %d of report %s: %w", c.seq, c.id, err)
	}
	c.total += int64(len(c.buf))
	c.seq++
	c.buf = c.buf[:0]
	return nil
}

// Open returns an AVAILABLE report the viewer may see and its CSV file,
// decompressed as it is read, one stored chunk at a time. Before
// REPORT_AVAILABLE it is CONFLICT.
func (s *Service) Open(ctx context.Context, viewer, id string) (Report, io.ReadCloser, error) {
	r, err := s.Get(ctx, viewer, id)
	if err != nil {
		return Report{}, nil, err
	}
	if r.Status != Available {
		return r, nil, errs.E(errs.Conflict, "Report %s is %s; download it once it is REPORT_AVAILABLE (poll GET /reports/%s).", r.ID, r.Status, r.ID)
	}
	chunks := &chunkReader{ctx: ctx, repo: s.repo, id: r.ID, attempt: r.Attempt}
	gz, err := gzip.NewReader(chunks)
	if err != nil {
		return r, nil, fmt.Errorf("open report %s: %w", r.ID, err)
	}
	return r, gz, nil
}

// chunkReader reads the stored chunks of one attempt in order.
type chunkReader struct {
	ctx     context.Context
	repo    Repository
	id      string
	attempt int
	seq     int
	buf     []byte
	done    bool
}

func (c *chunkReader) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		if c.done {
			return 0, io.EOF
		}
		b, err := c.repo.Chunk(c.ctx, c.id, c.attempt, c.seq)
		if errs.Is(err, errs.NotFound) {
			c.done = true
			continue
		}
		if err != nil {
			return 0, err
		}
		c.buf, c.seq = b, c.seq+1
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}
