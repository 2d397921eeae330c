package camt

import (
	"bytes"
	"fmt"
	"io"
)

// scanner is the XML tokenizer of Read: a strict reader of XML 1.0 that
// hands on start and end elements, and keeps the character data between
// them (entities and character references decoded, CDATA as written,
// line ends normalised) only when asked to. It checks what encoding/xml
// checks (names, tag balance, quoting, entities, UTF-8 and the XML
// character range, comments) and reports a fault with its line, but
// allocates nothing per token: names are slices of its buffer, valid until
// the next call. A document's encoding declaration switches the rest of
// the stream to charsetReader's transcoding, as encoding/xml does.
type scanner struct {
	r        io.Reader
	buf      []byte
	pos      int   // next byte to read in buf
	lineBase int   // newlines in the bytes discarded before buf
	rerr     error // the reader's error (io.EOF at the end), once seen

	// keep asks for the character data to be appended to text.
	keep bool
	text []byte

	// the element just read (start or end)
	local, prefix, full []byte
	attrs               []attr
	attrBuf             []byte // decoded attribute values
	needClose           bool   // the last start was <e/>: its end comes next

	names []byte // the open elements' full names, back to back
	ends  []int  // where each open element's name ends in names
}

// attr is an attribute of the element just read; its value is
// attrBuf[from:to].
type attr struct {
	prefix, local []byte
	from, to      int
}

// token is what next found.
type token int

const (
	tokEOF token = iota
	tokStart
	tokEnd
)

// syntaxError is a fault of the document's XML, with its line.
type syntaxError struct {
	line int
	msg  string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// encodingError is an encoding declaration that cannot be read.
type encodingError struct{ msg string }

func (e *encodingError) Error() string { return e.msg }

// newScanner reads r.
func newScanner(r io.Reader) *scanner {
	return &scanner{r: r, buf: make([]byte, 0, 64<<10)}
}

// depth is how many elements are open.
func (s *scanner) depth() int { return len(s.ends) }

// errAt is a syntax error at buf[p].
func (s *scanner) errAt(p int, format string, a ...any) error {
	if p > len(s.buf) {
		p = len(s.buf)
	}
	line := s.lineBase + bytes.Count(s.buf[:p], []byte{'\n'}) + 1
	return &syntaxError{line: line, msg: fmt.Sprintf(format, a...)}
}

// unexpectedEOF is the error of a document that ends in the middle of
// something, or the reader's own error.
func (s *scanner) unexpectedEOF() error {
	if s.rerr != nil && s.rerr != io.EOF {
		return s.rerr
	}
	return s.errAt(len(s.buf), "unexpected EOF")
}

// more reads more input, keeping buf[pos:] (moved to the front of the
// buffer, which grows when it is full). It returns false at the end of
// the input or on the reader's error (s.rerr).
func (s *scanner) more() bool {
	if s.rerr != nil {
		return false
	}
	if s.pos > 0 {
		s.lineBase += bytes.Count(s.buf[:s.pos], []byte{'\n'})
		n := copy(s.buf, s.buf[s.pos:])
		s.buf, s.pos = s.buf[:n], 0
	}
	if len(s.buf) == cap(s.buf) {
		nb := make([]byte, len(s.buf), 2*cap(s.buf))
		copy(nb, s.buf)
		s.buf = nb
	}
	for range 100 {
		n, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+n]
		if err != nil {
			s.rerr = err
			return n > 0
		}
		if n > 0 {
			return true
		}
	}
	s.rerr = io.ErrNoProgress
	return false
}

// ensure makes buf[pos+n-1] available, reading more as needed; false at
// the end of the input.
func (s *scanner) ensure(n int) bool {
	for s.pos+n > len(s.buf) {
		if !s.more() {
			return false
		}
	}
	return true
}

// find returns the offset from pos of sep at or after offset from, reading
// more as needed; -1 at the end of the input.
func (s *scanner) find(from int, sep string) int {
	for {
		if s.pos+from < len(s.buf) {
			if i := bytes.Index(s.buf[s.pos+from:], []byte(sep)); i >= 0 {
				return from + i
			}
			// sep may begin in the last len(sep)-1 bytes
			if k := len(s.buf) - s.pos - len(sep) + 1; k > from {
				from = k
			}
		}
		if !s.more() {
			return -1
		}
	}
}

// next reads up to the next start or end element (or the end of the
// input), keeping the character data on the way when s.keep.
func (s *scanner) next() (token, error) {
	if s.needClose {
		s.needClose = false
		return tokEnd, s.pop()
	}
	for {
		if err := s.chars(); err != nil {
			return tokEOF, err
		}
		if s.pos >= len(s.buf) {
			if len(s.ends) > 0 {
				return tokEOF, s.unexpectedEOF()
			}
			if s.rerr != nil && s.rerr != io.EOF {
				return tokEOF, s.rerr
			}
			return tokEOF, nil
		}
		// s.buf[s.pos] == '<'
		if !s.ensure(2) {
			return tokEOF, s.unexpectedEOF()
		}
		switch s.buf[s.pos+1] {
		case '/':
			return tokEnd, s.endTag()
		case '?':
			if err := s.procInst(); err != nil {
				return tokEOF, err
			}
		case '!':
			if err := s.bang(); err != nil {
				return tokEOF, err
			}
		default:
			return tokStart, s.startTag()
		}
	}
}

// chars reads character data up to the next '<' or the end of the input.
func (s *scanner) chars() error {
	if s.pos < len(s.buf) && s.buf[s.pos] == '<' {
		return nil
	}
	for {
		seg := s.buf[s.pos:]
		lt := bytes.IndexByte(seg, '<')
		final := lt >= 0
		if final {
			seg = seg[:lt]
		}
		if len(seg) > 0 {
			n, err := s.decode(seg, 0, final, s.keep)
			if err != nil {
				return s.errAt(s.pos+err.at, "%s", err.msg)
			}
			s.pos += n
		}
		if final {
			return nil
		}
		if !s.more() {
			if s.pos < len(s.buf) { // an incomplete tail: decode it as final
				n, err := s.decode(s.buf[s.pos:], 0, true, s.keep)
				if err != nil {
					return s.errAt(s.pos+err.at, "%s", err.msg)
				}
				s.pos += n
			}
			return nil
		}
	}
}
