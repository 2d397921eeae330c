package camt

import (
	"bytes"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// cdata is decode's mode for a CDATA section (no entities); 0 is
// character data, a quote an attribute value.
const cdata = 1

// decodeError is a fault at offset at of what decode was given.
type decodeError struct {
	at  int
	msg string
}

// special marks the bytes decode must look at: controls, '&', ']' and
// the first bytes of multi-byte characters.
var special = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = c != '\t' && c != '\n'
	}
	t['&'], t[']'] = true, true
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	return t
}()

// decode reads src, character data (mode 0), a CDATA section (cdata) or
// an attribute value (its quote) as encoding/xml does: it decodes
// entities and character references, turns \r\n and \r into \n, and
// checks that every character is UTF-8 in XML's range; with keep it
// appends the result to s.text. Unless final (more may follow src), it
// stops before an entity, a character, a \r or a "]]" that src cuts, and
// returns how much it read.
func (s *scanner) decode(src []byte, mode byte, final, keep bool) (int, *decodeError) {
	if mode != 0 && mode != cdata && bytes.IndexByte(src, '<') >= 0 {
		return bytes.IndexByte(src, '<'), &decodeError{bytes.IndexByte(src, '<'), "unescaped < inside quoted string"}
	}
	start, i := 0, 0
	flush := func() {
		if keep {
			s.text = append(s.text, src[start:i]...)
		}
	}
	for i < len(src) {
		c := src[i]
		if !special[c] {
			i++
			continue
		}
		switch {
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size == 1 {
				if !final && !utf8.FullRune(src[i:]) {
					flush()
					return i, nil
				}
				return i, &decodeError{i, "invalid UTF-8"}
			}
			if !inCharRange(r) {
				return i, &decodeError{i, fmt.Sprintf("illegal character code %U", r)}
			}
			i += size
		case c == ']':
			if mode != 0 {
				i++
				continue
			}
			if i+2 >= len(src) && !final {
				flush()
				return i, nil
			}
			if i+2 < len(src) && src[i+1] == ']' && src[i+2] == '>' {
				return i, &decodeError{i, "unescaped ]]> not in CDATA section"}
			}
			i++
		case c == '\r':
			if i+1 >= len(src) && !final {
				flush()
				return i, nil
			}
			flush()
			if keep {
				s.text = append(s.text, '\n')
			}
			i++
			if i < len(src) && src[i] == '\n' {
				i++
			}
			start = i
		case c == '&' && mode != cdata:
			flush()
			r, n, err := entity(src[i:], final)
			if err != "" {
				return i, &decodeError{i, err}
			}
			if n == 0 { // cut by the end of src
				return i, nil
			}
			if keep {
				s.text = utf8.AppendRune(s.text, r)
			}
			i += n
			start = i
		case c == '&':
			i++
		default:
			return i, &decodeError{i, fmt.Sprintf("illegal character code %U", rune(c))}
		}
	}
	flush()
	return i, nil
}

// entity reads the entity or character reference at the start of src
// ("&amp;", "&#233;", "&#xE9;"): the character and its length, 0 when
// src ends before it does (and it is not final), or what is wrong.
func entity(src []byte, final bool) (rune, int, string) {
	invalid := func(k int, semicolon bool) (rune, int, string) {
		if k > len(src) {
			k = len(src)
		}
		if semicolon {
			return 0, 0, "invalid character entity " + string(src[:k])
		}
		return 0, 0, "invalid character entity " + string(src[:k]) + " (no semicolon)"
	}
	k := 1
	if k < len(src) && src[k] == '#' {
		k++
		base := rune(10)
		if k < len(src) && src[k] == 'x' {
			base = 16
			k++
		}
		from := k
		var n rune
		for ; k < len(src); k++ {
			d := digit(src[k], base)
			if d < 0 {
				break
			}
			if n <= unicode.MaxRune {
				n = n*base + d
			}
		}
		if k >= len(src) {
			if !final {
				return 0, 0, ""
			}
			return invalid(k, false)
		}
		if src[k] != ';' {
			return invalid(k, false)
		}
		if k == from || n > unicode.MaxRune {
			return invalid(k+1, true)
		}
		if n >= 0xD800 && n <= 0xDFFF { // as string(rune(n)) makes it
			n = utf8.RuneError
		}
		if !inCharRange(n) {
			return 0, 0, fmt.Sprintf("illegal character code %U", n)
		}
		return n, k + 1, ""
	}
	for k < len(src) && (src[k] >= utf8.RuneSelf || isNameByte(src[k])) {
		k++
	}
	if k >= len(src) {
		if !final {
			return 0, 0, ""
		}
		return invalid(k, false)
	}
	if src[k] != ';' {
		return invalid(k, false)
	}
	var r rune
	switch string(src[1:k]) {
	case "lt":
		r = '<'
	case "gt":
		r = '>'
	case "amp":
		r = '&'
	case "apos":
		r = '\''
	case "quot":
		r = '"'
	default:
		return invalid(k+1, true)
	}
	return r, k + 1, ""
}

// digit is the value of c as a digit of base, or -1.
func digit(c byte, base rune) rune {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0')
	case base == 16 && 'a' <= c && c <= 'f':
		return rune(c-'a') + 10
	case base == 16 && 'A' <= c && c <= 'F':
		return rune(c-'A') + 10
	}
	return -1
}

// inCharRange is XML's Char production.
func inCharRange(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}

// plainNameByte is isNameByte without ':'.
var plainNameByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c != ':' && isNameByte(byte(c))
	}
	return t
}()

// isNameByte is an ASCII byte a name may hold.
func isNameByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '_' || c == ':' || c == '.' || c == '-'
}

// scanName reads a name at the start of b: its ASCII name bytes and any
// multi-byte characters (isName checks them); false when there is none.
func scanName(b []byte) ([]byte, int, bool) {
	i := 0
	for i < len(b) && (b[i] >= utf8.RuneSelf || isNameByte(b[i])) {
		i++
	}
	return b[:i], i, i > 0
}

// isName checks a name's characters: a letter, '_' or ':' first, then
// letters, digits, marks, '.', '-', '_', ':' and the middle dot.
func isName(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	first := true
	for len(b) > 0 {
		c := b[0]
		if c < utf8.RuneSelf {
			ok := 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || c == '_' || c == ':'
			if !ok && (first || !isNameByte(c)) {
				return false
			}
			b, first = b[1:], false
			continue
		}
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			return false
		}
		ok := unicode.IsLetter(r)
		if !first {
			ok = ok || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) ||
				unicode.Is(unicode.Lm, r) || r == 0xB7
		}
		if !ok {
			return false
		}
		b, first = b[n:], false
	}
	return true
}

// isNameFast is isName, quicker for the ASCII names of a camt file.
func isNameFast(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	c := b[0]
	if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || c == '_' || c == ':') {
		return isName(b)
	}
	for _, c := range b[1:] {
		if c >= utf8.RuneSelf {
			return isName(b)
		}
	}
	return true // scanName took only name bytes
}

// splitName splits prefix:local as encoding/xml does: a name with one
// colon inside has a prefix; with more it is no name.
func splitName(full []byte) (prefix, local []byte, ok bool) {
	i := -1
	for k, c := range full {
		if c == ':' {
			if i >= 0 {
				return nil, nil, false
			}
			i = k
		}
	}
	if i < 0 {
		return nil, full, true
	}
	if i == 0 || i == len(full)-1 {
		return nil, full, true
	}
	return full[:i], full[i+1:], true
}
