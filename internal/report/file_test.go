package report

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
)

// chunkRepo keeps the chunks written; it fails from the failAt-th on.
type chunkRepo struct {
	Repository
	mu     sync.Mutex
	chunks map[int][]byte
	failAt int
}

func (r *chunkRepo) WriteChunk(_ context.Context, _ string, _ int, seq int, data []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failAt >= 0 && seq >= r.failAt {
		return errors.New("disk full")
	}
	r.chunks[seq] = bytes.Clone(data)
	return nil
}

// The chunk writer stores every byte once, in chunks of its size and in
// order, while the writer goes on; a failed store is returned by a later
// Write or by wait, and nothing is stored after it.
func TestChunkWriterKeepsOrderAndReportsErrors(t *testing.T) {
	t.Parallel()
	repo := &chunkRepo{chunks: map[int][]byte{}, failAt: -1}
	c := newChunkWriter(context.Background(), repo, "r", 1, 7)
	var want bytes.Buffer
	for i := range 1000 {
		b := []byte{byte(i), byte(i >> 8), 'x'}
		want.Write(b)
		if _, err := c.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.flush(); err != nil {
		t.Fatal(err)
	}
	if err := c.wait(); err != nil {
		t.Fatal(err)
	}
	if err := c.wait(); err != nil { // twice: no panic
		t.Fatal(err)
	}
	var got bytes.Buffer
	for seq := range len(repo.chunks) {
		b, ok := repo.chunks[seq]
		if !ok || (len(b) != 7 && seq != len(repo.chunks)-1) {
			t.Fatalf("chunk %d: %d bytes (%v)", seq, len(b), ok)
		}
		got.Write(b)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) || c.total != int64(want.Len()) {
		t.Fatalf("%d bytes stored (total %d), want %d in order", got.Len(), c.total, want.Len())
	}

	repo = &chunkRepo{chunks: map[int][]byte{}, failAt: 3}
	c = newChunkWriter(context.Background(), repo, "r", 1, 4)
	var werr error
	for range 1000 {
		if _, werr = c.Write([]byte("row\n")); werr != nil {
			break
		}
	}
	if werr == nil || werr.Error() != "store chunk 3 of report r: disk full" {
		t.Fatalf("write after a failure: %v", werr)
	}
	if err := c.wait(); err == nil || err.Error() != werr.Error() {
		t.Fatalf("wait after a failure: %v", err)
	}
	if len(repo.chunks) != 3 {
		t.Fatalf("%d chunks stored, want the 3 before the failure", len(repo.chunks))
	}
}
