package camt

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

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
