package camt

import (
	"fmt"
	"io"
	"strings"
)

// charsetReader reads the encodings banks declare besides UTF-8: ISO
// 8859-1 (and its Windows superset, read as Latin-1) byte by byte.
func charsetReader(label string, in io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "windows-1252", "cp1252":
		return &latin1{r: in}, nil
	case "us-ascii", "ascii":
		return in, nil
	}
	return nil, fmt.Errorf("the encoding %q is not read (UTF-8 and ISO 8859-1 are)", label)
}

// latin1 turns ISO 8859-1 bytes into UTF-8, a block at a time.
type latin1 struct {
	r    io.Reader
	raw  []byte // bytes read, not yet turned
	pend []byte // the second byte of a character p had no room for
}

// Read fills p with the UTF-8 of the Latin-1 bytes read.
func (l *latin1) Read(p []byte) (int, error) {
	n := 0
	if len(l.pend) > 0 && len(p) > 0 {
		p[0], l.pend, n = l.pend[0], l.pend[:0], 1
	}
	if n == len(p) {
		return n, nil
	}
	want := (len(p) - n + 1) / 2
	if cap(l.raw) < want {
		l.raw = make([]byte, want)
	}
	m, err := l.r.Read(l.raw[:want])
	for _, b := range l.raw[:m] {
		if b < 0x80 {
			p[n] = b
			n++
			continue
		}
		p[n] = 0xC0 | b>>6
		if n+1 < len(p) {
			p[n+1] = 0x80 | b&0x3F
		} else {
			l.pend = append(l.pend, 0x80|b&0x3F)
		}
		n += 2
	}
	if n > len(p) {
		n = len(p)
	}
	return n, err
}
