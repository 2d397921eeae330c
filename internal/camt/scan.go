package camt

import (
	"bytes"
	"fmt"
	"io"
	"strings"
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

// markupEnd reads to the end of the tag at pos and returns the offset of
// its '>', skipping quoted attribute values.
func (s *scanner) markupEnd() (int, error) {
	// most tags have no attribute: the first '>' closes them
	if i := bytes.IndexByte(s.buf[s.pos:], '>'); i >= 0 && !hasQuote(s.buf[s.pos:s.pos+i]) {
		return i, nil
	}
	var quote byte
	for i := 1; ; i++ {
		if s.pos+i >= len(s.buf) && !s.more() {
			return 0, s.unexpectedEOF()
		}
		switch c := s.buf[s.pos+i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return i, nil
		}
	}
}

func hasQuote(b []byte) bool {
	for _, c := range b {
		if c == '"' || c == '\'' {
			return true
		}
	}
	return false
}

// startTag reads <name attr="value"...> or <name .../>.
func (s *scanner) startTag() error {
	// the usual case, <Name> without prefix or attribute, in the buffer
	b := s.buf[s.pos+1:]
	i := 0
	for i < len(b) && plainNameByte[b[i]] {
		i++
	}
	if i < len(b) && b[i] == '>' && i > 0 && !('0' <= b[0] && b[0] <= '9' || b[0] == '.' || b[0] == '-') {
		full := b[:i]
		s.names = append(s.names, full...)
		s.ends = append(s.ends, len(s.names))
		s.full, s.prefix, s.local = full, nil, full
		s.attrs = s.attrs[:0]
		s.pos += i + 2
		return nil
	}
	end, err := s.markupEnd()
	if err != nil {
		return err
	}
	tag := s.buf[s.pos : s.pos+end+1]
	base := s.pos
	i = 1
	full, n, ok := scanName(tag[i:])
	if !ok {
		return s.errAt(base+i, "expected element name after <")
	}
	if !isNameFast(full) {
		return s.errAt(base+i, "invalid XML name: %s", full)
	}
	s.full = full
	s.prefix, s.local, ok = splitName(full)
	if !ok {
		return s.errAt(base+i, "expected element name after <")
	}
	i += n
	s.attrs, s.attrBuf = s.attrs[:0], s.attrBuf[:0]
	empty := false
	for {
		i = skipSpace(tag, i)
		c := tag[i]
		if c == '/' {
			if tag[i+1] != '>' {
				return s.errAt(base+i, "expected /> in element")
			}
			empty = true
			break
		}
		if c == '>' {
			break
		}
		name, n, ok := scanName(tag[i:])
		if ok && !isNameFast(name) {
			return s.errAt(base+i, "invalid XML name: %s", name)
		}
		var a attr
		if ok {
			a.prefix, a.local, ok = splitName(name)
		}
		if !ok {
			return s.errAt(base+i, "expected attribute name in element")
		}
		i = skipSpace(tag, i+n)
		if tag[i] != '=' {
			return s.errAt(base+i, "attribute name without = in element")
		}
		i = skipSpace(tag, i+1)
		q := tag[i]
		if q != '"' && q != '\'' {
			return s.errAt(base+i, "unquoted or missing attribute value in element")
		}
		j := bytes.IndexByte(tag[i+1:], q) // markupEnd matched the quotes
		if j < 0 {
			return s.errAt(base+i, "unquoted or missing attribute value in element")
		}
		a.from = len(s.attrBuf)
		saved := s.text
		s.text = s.attrBuf
		_, derr := s.decode(tag[i+1:i+1+j], q, true, true)
		s.attrBuf, s.text = s.text, saved
		if derr != nil {
			return s.errAt(base+i+1+derr.at, "%s", derr.msg)
		}
		a.to = len(s.attrBuf)
		s.attrs = append(s.attrs, a)
		i += j + 2
	}
	s.names = append(s.names, full...)
	s.ends = append(s.ends, len(s.names))
	// full and the attributes' names point into buf: the names stack holds
	// the element's name from here on, and buf is not moved before the
	// next call to next.
	s.full = s.names[len(s.names)-len(full):]
	s.pos += end + 1
	s.needClose = empty
	return nil
}

// endTag reads </name>.
func (s *scanner) endTag() error {
	// the usual case: </name> of the open element
	if n := len(s.ends); n > 0 {
		open := s.names[s.start():]
		if k := s.pos + 2 + len(open); k < len(s.buf) && s.buf[k] == '>' && bytes.Equal(s.buf[s.pos+2:k], open) {
			s.pos = k + 1
			return s.pop()
		}
	}
	end, err := s.markupEnd()
	if err != nil {
		return err
	}
	tag := s.buf[s.pos : s.pos+end+1]
	base := s.pos
	full, n, ok := scanName(tag[2:])
	if ok && !isName(full) {
		return s.errAt(base+2, "invalid XML name: %s", full)
	}
	if ok {
		s.prefix, s.local, ok = splitName(full)
	}
	if !ok {
		return s.errAt(base+2, "expected element name after </")
	}
	if i := skipSpace(tag, 2+n); tag[i] != '>' {
		return s.errAt(base+i, "invalid characters between </%s and >", s.local)
	}
	if len(s.ends) == 0 {
		return s.errAt(base, "unexpected end element </%s>", full)
	}
	open := s.names[s.start():]
	if !bytes.Equal(open, full) {
		op, ol, _ := splitName(open)
		if !bytes.Equal(ol, s.local) {
			return s.errAt(base, "element <%s> closed by </%s>", ol, s.local)
		}
		return s.errAt(base, "element <%s> in space %s closed by </%s> in space %s", ol, op, s.local, s.prefix)
	}
	s.pos += end + 1
	return s.pop()
}

// start is where the innermost open element's name starts in names.
func (s *scanner) start() int {
	if len(s.ends) < 2 {
		return 0
	}
	return s.ends[len(s.ends)-2]
}

// pop closes the innermost element; full is its name until the next
// call.
func (s *scanner) pop() error {
	from := s.start()
	s.full = s.names[from:]
	s.names = s.names[:from]
	s.ends = s.ends[:len(s.ends)-1]
	return nil
}

// procInst reads <?target data?>; the declaration <?xml ...?> may switch
// the stream's encoding.
func (s *scanner) procInst() error {
	if !s.ensure(3) {
		return s.unexpectedEOF()
	}
	// the target: a name, read in full
	i := 2
	for {
		if s.pos+i >= len(s.buf) && !s.more() {
			return s.unexpectedEOF()
		}
		if c := s.buf[s.pos+i]; c < 0x80 && !isNameByte(c) {
			break
		}
		i++
	}
	target := s.buf[s.pos+2 : s.pos+i]
	if len(target) == 0 || !isName(target) {
		if len(target) == 0 {
			return s.errAt(s.pos+2, "expected target name after <?")
		}
		return s.errAt(s.pos+2, "invalid XML name: %s", target)
	}
	isXML := string(target) == "xml"
	end := s.find(i, "?>")
	if end < 0 {
		return s.unexpectedEOF()
	}
	content := string(s.buf[s.pos+i : s.pos+end])
	s.pos += end + 2
	if !isXML {
		return nil
	}
	if ver := procInst("version", content); ver != "" && ver != "1.0" {
		return &encodingError{fmt.Sprintf("the XML version %q is not read (1.0 is)", ver)}
	}
	enc := procInst("encoding", content)
	if enc == "" || strings.EqualFold(enc, "utf-8") {
		return nil
	}
	rest := append([]byte(nil), s.buf[s.pos:]...)
	in := s.r
	if s.rerr != nil { // the reader has ended already: after rest, its end
		in = errReader{s.rerr}
	}
	nr, err := charsetReader(enc, io.MultiReader(bytes.NewReader(rest), in))
	if err != nil {
		return &encodingError{fmt.Sprintf("the file declares %v", err)}
	}
	s.lineBase += bytes.Count(s.buf[:s.pos], []byte{'\n'})
	s.buf, s.pos, s.r, s.rerr = s.buf[:0], 0, nr, nil
	return nil
}

// errReader is a reader that has ended with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// procInst returns the value of param in the content of <?xml ...?>, as
// encoding/xml reads it.
func procInst(param, s string) string {
	param += "="
	i := 0
	var sep byte
	for i < len(s) {
		sub := s[i:]
		k := strings.Index(sub, param)
		if k < 0 || len(param)+k >= len(sub) {
			return ""
		}
		i += len(param) + k + 1
		if c := sub[len(param)+k]; c == '\'' || c == '"' {
			sep = c
			break
		}
	}
	if sep == 0 {
		return ""
	}
	j := strings.IndexByte(s[i:], sep)
	if j < 0 {
		return ""
	}
	return s[i : i+j]
}

// bang reads a comment, a CDATA section or a directive (<!DOCTYPE ...>).
func (s *scanner) bang() error {
	if !s.ensure(3) {
		return s.unexpectedEOF()
	}
	switch s.buf[s.pos+2] {
	case '-':
		if !s.ensure(4) {
			return s.unexpectedEOF()
		}
		if s.buf[s.pos+3] != '-' {
			return s.errAt(s.pos+3, "invalid sequence <!- not part of <!--")
		}
		end := s.find(4, "--")
		if end < 0 || !s.ensure(end+3) {
			return s.unexpectedEOF()
		}
		if s.buf[s.pos+end+2] != '>' {
			return s.errAt(s.pos+end+2, `invalid sequence "--" not allowed in comments`)
		}
		s.pos += end + 3
		return nil
	case '[':
		for k := range 6 {
			if !s.ensure(4 + k) {
				return s.unexpectedEOF()
			}
			if s.buf[s.pos+3+k] != "CDATA["[k] {
				return s.errAt(s.pos+3+k, "invalid <![ sequence")
			}
		}
		end := s.find(9, "]]>")
		if end < 0 {
			return s.errAt(len(s.buf), "unexpected EOF in CDATA section")
		}
		if _, err := s.decode(s.buf[s.pos+9:s.pos+end], cdata, true, s.keep); err != nil {
			return s.errAt(s.pos+9+err.at, "%s", err.msg)
		}
		s.pos += end + 3
		return nil
	}
	return s.directive()
}

// directive skips <!DOCTYPE ...> and the like as encoding/xml reads them:
// up to the '>' that closes it, past quoted strings, nested <...> and
// comments; the byte after "<!" is taken as it is.
func (s *scanner) directive() error {
	var quote byte
	depth := 0
	for i := 3; ; i++ {
		if !s.ensure(i + 1) {
			return s.unexpectedEOF()
		}
		c := s.buf[s.pos+i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '>':
			if depth == 0 {
				s.pos += i + 1
				return nil
			}
			depth--
		case c == '<':
			if s.ensure(i+4) && string(s.buf[s.pos+i+1:s.pos+i+4]) == "!--" {
				end := s.find(i+4, "-->")
				if end < 0 {
					return s.unexpectedEOF()
				}
				i = end + 2
				continue
			}
			depth++
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
