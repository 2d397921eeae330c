package dbtest

import (
	"bytes"
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy is a TCP proxy in front of a test's PostgreSQL that the test can
// cut (every connection closed at once, as when the server dies) or hang
// (nothing forwarded either way while the connections stay open, as in a
// network partition: no error, no answer), and heal. Its URL is the
// database URL through it. It is closed when the test ends.
type Proxy struct {
	URL string

	target string
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	open   chan struct{} // closed while forwarding; replaced by Hang
	cutOn  []byte        // CutOn's text; nil: none
	cuts   int           // connections cut by CutOn
}

// NewProxy starts a proxy to the server of databaseURL (TCP only: a
// test of a URL naming no host is skipped).
func NewProxy(tb testing.TB, databaseURL string) *Proxy {
	tb.Helper()
	u, err := url.Parse(databaseURL)
	if err != nil {
		tb.Fatal(err)
	}
	if u.Hostname() == "" {
		tb.Skipf("skipping: the proxy needs PostgreSQL on TCP, and %s names no host", u.Redacted())
	}
	target := u.Host
	if u.Port() == "" {
		target = net.JoinHostPort(u.Hostname(), "5432")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	u.Host = ln.Addr().String()
	q := u.Query()
	q.Set("sslmode", "disable")
	u.RawQuery = q.Encode()
	p := &Proxy{URL: u.String(), target: target, conns: map[net.Conn]struct{}{}, open: make(chan struct{})}
	close(p.open)
	tb.Cleanup(func() {
		ln.Close()
		p.Heal()
		p.Cut()
	})
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target)
			if err != nil {
				_ = client.Close() // the upstream could not be reached: the client is dropped
				continue
			}
			p.mu.Lock()
			p.conns[client], p.conns[server] = struct{}{}, struct{}{}
			p.mu.Unlock()
			go p.pipe(client, server)
			go p.pipe(server, client)
		}
	}()
	return p
}

// pipe forwards from src to dst while the proxy is open; it closes both
// when either ends.
func (p *Proxy) pipe(src, dst net.Conn) {
	defer p.drop(src, dst)
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			open := p.open
			cut := p.cutOn != nil && bytes.Contains(buf[:n], p.cutOn)
			if cut {
				p.cutOn = nil
				p.cuts++
			}
			p.mu.Unlock()
			if cut {
				p.Cut()
				return
			}
			<-open // hung: held until healed
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *Proxy) drop(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		_ = c.Close() // dropped on purpose: a close error changes nothing
		delete(p.conns, c)
	}
}

// Hang stops forwarding on every connection, open or opened later: what
// either side sends is held, unanswered, until Heal.
func (p *Proxy) Hang() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.open:
		p.open = make(chan struct{})
	default: // hung already
	}
}

// Heal forwards again, what was held first.
func (p *Proxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.open:
	default:
		close(p.open)
	}
}

// CutOn arms a cut: the first message either side sends that holds text
// (a query's words) is not forwarded, and every connection is closed
// instead, as when the server dies in the middle of that query's
// transaction. It cuts once.
func (p *Proxy) CutOn(text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cutOn = []byte(text)
}

// Cuts counts the cuts CutOn made.
func (p *Proxy) Cuts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cuts
}

// Cut closes every connection open now; new ones are forwarded.
func (p *Proxy) Cut() {
	p.mu.Lock()
	conns := make([]net.Conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	p.drop(conns...)
}
