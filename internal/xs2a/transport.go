package xs2a

import (
	"net/http"
	"time"
)

// IdlePerBank is how many idle keep-alive connections the connector keeps
// to one bank (http.Transport's MaxIdleConnsPerHost, 2 by default): with
// fewer than the payers coming back at once, every further exchange opens
// a connection (with mutual TLS at a real bank, a handshake) and closes it
// after.
const IdlePerBank = 64

// idleTimeout is how long an idle connection to a bank is kept.
const idleTimeout = 90 * time.Second

// newTransport is the connector's transport to one bank, or to the mock
// ASPSP: http.DefaultTransport's settings (proxy from the environment,
// dial and TLS handshake timeouts, HTTP/2 when the bank offers it) with
// IdlePerBank idle connections kept.
func newTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 4 * IdlePerBank
	t.MaxIdleConnsPerHost = IdlePerBank
	t.IdleConnTimeout = idleTimeout
	return t
}

// noRedirect keeps a bank's 3xx for the caller (a bank's answer is never
// followed elsewhere).
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// LoopbackClient is the HTTP client of the sandbox's connector to the mock
// ASPSP that the instance serves at its own address: plain HTTP (no TLS on
// loopback), keep-alive with IdlePerBank idle connections (every mock bank
// is the same host), no redirect followed.
func LoopbackClient() *http.Client {
	return &http.Client{Transport: newTransport(), CheckRedirect: noRedirect}
}
