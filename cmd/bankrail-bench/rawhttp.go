package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// rawConn is one keep-alive HTTP/1.1 connection driven by hand, as wrk
// drives its connections: the request is bytes written as they are, the
// answer is parsed only as far as its status and body. Go's http.Client
// would spend more CPU per request than a small server does, on the same
// cores, and so measure itself; this costs a few microseconds.
type rawConn struct {
	c    net.Conn
	br   *bufio.Reader
	body []byte // the last answer's body, reused
}

func dialRaw(addr string) (*rawConn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &rawConn{c: c, br: bufio.NewReaderSize(c, 32<<10)}, nil
}

func (c *rawConn) Close() error { return c.c.Close() }

// do writes req (a whole HTTP/1.1 request) and reads the answer: its status
// and body (valid until the next call).
func (c *rawConn) do(req []byte, deadline time.Time) (int, []byte, error) {
	status, body, _, err := c.doHeaders(req, deadline)
	return status, body, err
}

// doHeaders is do that also returns the values of the headers named.
func (c *rawConn) doHeaders(req []byte, deadline time.Time, names ...string) (int, []byte, []string, error) {
	_ = c.c.SetDeadline(deadline)
	if _, err := c.c.Write(req); err != nil {
		return 0, nil, nil, err
	}
	line, err := c.br.ReadSlice('\n')
	if err != nil {
		return 0, nil, nil, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, nil, nil, fmt.Errorf("malformed status line %q", line)
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("malformed status line %q", line)
	}
	length, chunked := -1, false
	var values []string
	if len(names) > 0 {
		values = make([]string, len(names))
	}
	for {
		line, err = c.br.ReadSlice('\n')
		if err != nil {
			return 0, nil, nil, err
		}
		if len(line) <= 2 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil {
				return 0, nil, nil, fmt.Errorf("malformed Content-Length %q", value)
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		}
		for i, n := range names {
			if bytes.EqualFold(name, []byte(n)) {
				values[i] = string(value)
			}
		}
	}
	c.body = c.body[:0]
	switch {
	case chunked:
		err = c.readChunked()
	case length >= 0:
		c.body = grow(c.body, length)
		_, err = io.ReadFull(c.br, c.body)
	default:
		err = errors.New("an answer without Content-Length or chunked encoding")
	}
	return status, c.body, values, err
}

// readChunked reads a chunked body into c.body.
func (c *rawConn) readChunked() error {
	for {
		line, err := c.br.ReadSlice('\n')
		if err != nil {
			return err
		}
		size, _, _ := bytes.Cut(bytes.TrimSpace(line), []byte(";"))
		n, err := strconv.ParseInt(string(size), 16, 32)
		if err != nil {
			return fmt.Errorf("malformed chunk size %q", line)
		}
		if n == 0 {
			for { // trailers, then the blank line
				line, err = c.br.ReadSlice('\n')
				if err != nil || len(line) <= 2 {
					return err
				}
			}
		}
		start := len(c.body)
		c.body = grow(c.body, start+int(n))
		if _, err := io.ReadFull(c.br, c.body[start:]); err != nil {
			return err
		}
		if _, err := c.br.Discard(2); err != nil { // CRLF after the chunk
			return err
		}
	}
}

// grow returns b resized to n bytes, keeping its contents.
func grow(b []byte, n int) []byte {
	if cap(b) >= n {
		return b[:n]
	}
	nb := make([]byte, n, max(n, 2*cap(b)))
	copy(nb, b)
	return nb
}

// rawRequest is an HTTP/1.1 request as bytes: method, path, headers (name,
// value pairs) and body.
func rawRequest(host, method, path string, body []byte, headers ...string) []byte {
	b := fmt.Appendf(nil, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, path, host)
	for i := 0; i+1 < len(headers); i += 2 {
		b = fmt.Appendf(b, "%s: %s\r\n", headers[i], headers[i+1])
	}
	if body != nil {
		b = fmt.Appendf(b, "Content-Length: %d\r\n", len(body))
	}
	b = append(b, "\r\n"...)
	return append(b, body...)
}
