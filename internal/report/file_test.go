package report

import (
	"bytes"
	"errors"
	"testing"
)

// failAfter accepts n writes, then fails.
type failAfter struct {
	n   int
	buf bytes.Buffer
}

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	return f.buf.Write(p)
}

func TestAsyncWriterKeepsOrderAndReportsErrors(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	a := newAsyncWriter(&out, 2, 4)
	var want bytes.Buffer
	for i := range 1000 {
		b := []byte{byte(i), byte(i >> 8), 'x'}
		want.Write(b)
		if _, err := a.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil || !bytes.Equal(out.Bytes(), want.Bytes()) {
		t.Fatalf("close %v; %d bytes, want %d in order", err, out.Len(), want.Len())
	}
	if err := a.Close(); err != nil { // twice: no panic
		t.Fatal(err)
	}

	f := &failAfter{n: 3}
	a = newAsyncWriter(f, 2, 4)
	var werr error
	for range 100 {
		if _, werr = a.Write([]byte("row\n")); werr != nil {
			break
		}
	}
	if err := a.Close(); err == nil || err.Error() != "disk full" {
		t.Fatalf("close after a failure: %v", err)
	}
	if werr == nil {
		t.Log("every write was accepted before the failure was seen (allowed: Close reports it)")
	}
}
