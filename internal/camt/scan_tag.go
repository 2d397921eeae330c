package camt

import "bytes"

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

// hasQuote tells whether b holds a quote.
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

// skipSpace is the index of the first byte of b from i on that is not
// XML white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
