package report

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/csv"
	"fmt"
	"io"

	"github.com/bankrail/bankrail/internal/errs"
)

// fileWriter turns CSV records into the stored chunks of one attempt:
// encoding/csv -> gzip -> pieces of at most size compressed bytes, each
// written as it fills. Memory stays at one chunk plus gzip's window.
type fileWriter struct {
	csv    *csv.Writer
	gz     *gzip.Writer
	chunks *chunkWriter
	count  *countWriter
	raw    int64 // uncompressed bytes
	stored int64 // compressed bytes
}

func newFileWriter(ctx context.Context, repo Repository, id string, attempt, size int) *fileWriter {
	ch := &chunkWriter{ctx: ctx, repo: repo, id: id, attempt: attempt, buf: make([]byte, 0, size)}
	gz, _ := gzip.NewWriterLevel(ch, gzip.BestSpeed) // a valid level: no error
	cnt := &countWriter{w: gz}
	return &fileWriter{csv: csv.NewWriter(bufio.NewWriterSize(cnt, 64<<10)), gz: gz, chunks: ch, count: cnt}
}

// Close flushes every layer and writes the last chunk.
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
