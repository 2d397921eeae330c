package report

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
)

// fileWriter turns CSV records into the stored chunks of one attempt:
// encoding/csv -> gzip (best speed) -> pieces of at most size compressed
// bytes. Formatting, CSV and compression run on the generating goroutine
// (one core: the API keeps the others); only storing a full chunk, which
// waits on the database, is handed to a goroutine of its own, so the
// generation goes on meanwhile. Memory stays at two chunks, gzip's window
// and the CSV buffer.
type fileWriter struct {
	csv    *csv.Writer
	gz     *gzip.Writer
	chunks *chunkWriter
	count  *countWriter
	raw    int64 // uncompressed bytes
	stored int64 // compressed bytes
}

const csvBlock = 64 << 10 // bytes of CSV handed to the compressor at once

func newFileWriter(ctx context.Context, repo Repository, id string, attempt, size int) *fileWriter {
	ch := newChunkWriter(ctx, repo, id, attempt, size)
	gz, _ := gzip.NewWriterLevel(ch, gzip.BestSpeed) // a valid level: no error
	cnt := &countWriter{w: gz}
	return &fileWriter{csv: csv.NewWriter(bufio.NewWriterSize(cnt, csvBlock)), gz: gz, chunks: ch, count: cnt}
}

// Abort stops the storing goroutine of a file that will not be closed
// (generation failed). It is a no-op after Close.
func (f *fileWriter) Abort() { _ = f.chunks.wait() }

// Close flushes every layer, stores the last chunk and waits until every
// chunk is stored.
func (f *fileWriter) Close() error {
	f.csv.Flush()
	if err := f.csv.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	if err := f.gz.Close(); err != nil {
		return fmt.Errorf("compress: %w", err)
	}
	if err := f.chunks.flush(); err != nil {
		return err
	}
	if err := f.chunks.wait(); err != nil {
		return err
	}
	f.raw, f.stored = f.count.n, f.chunks.total
	return nil
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

// chunkWriter cuts what is written into chunks of cap(buf) bytes and
// stores each in order on a goroutine of its own, one at a time: while a
// chunk is stored the next fills. The first failure is returned by the
// next Write, flush or wait.
type chunkWriter struct {
	ctx     context.Context
	repo    Repository
	id      string
	attempt int
	buf     []byte
	total   int64

	full   chan []byte // chunks to store
	free   chan []byte // stored chunks' buffers
	done   chan struct{}
	failed atomic.Pointer[error]
	once   sync.Once
}

func newChunkWriter(ctx context.Context, repo Repository, id string, attempt, size int) *chunkWriter {
	c := &chunkWriter{ctx: ctx, repo: repo, id: id, attempt: attempt, buf: make([]byte, 0, size),
		full: make(chan []byte, 1), free: make(chan []byte, 2), done: make(chan struct{})}
	c.free <- make([]byte, 0, size)
	go c.store()
	return c
}

// store writes the chunks handed to it, in order, until full is closed.
func (c *chunkWriter) store() {
	defer close(c.done)
	seq := 0
	for b := range c.full {
		if c.failed.Load() == nil {
			if err := c.repo.WriteChunk(c.ctx, c.id, c.attempt, seq, b); err != nil {
				err = fmt.Errorf("store chunk %d of report %s: %w", seq, c.id, err)
				c.failed.Store(&err)
			}
		}
		seq++
		c.free <- b[:0]
	}
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

// flush hands the buffered bytes over as the next chunk.
func (c *chunkWriter) flush() error {
	if err := c.failed.Load(); err != nil {
		return *err
	}
	if len(c.buf) == 0 {
		return nil
	}
	c.total += int64(len(c.buf))
	c.full <- c.buf
	c.buf = <-c.free
	return nil
}

// wait ends the storing goroutine once every chunk handed over is stored
// and returns the first failure.
func (c *chunkWriter) wait() error {
	c.once.Do(func() { close(c.full) })
	<-c.done
	if err := c.failed.Load(); err != nil {
		return *err
	}
	return nil
}

// Open returns an AVAILABLE report the viewer may see and its CSV file,
// decompressed as it is read, one stored chunk at a time. Before
// REPORT_AVAILABLE it is CONFLICT.
func (s *Service) Open(ctx context.Context, viewer, id string) (Report, io.ReadCloser, error) {
	if _, err := identity.Authorize(ctx, identity.ReportRead); err != nil {
		return Report{}, nil, err
	}
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
