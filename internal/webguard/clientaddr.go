package webguard

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Proxies says which proxies in front of bankrail may name the client's
// address in X-Forwarded-For. Each proxy appends the address it saw, so only
// entries appended by trusted proxies are worth anything; everything to
// their left is the client's own claim. The zero value trusts no proxy.
type Proxies struct {
	Trust bool // read X-Forwarded-For at all (--trust-proxy-headers)
	// Networks are the proxies' addresses (--trusted-proxies): the client
	// is the right-most hop outside them, the peer included.
	Networks []netip.Prefix
	// Count is how many proxies are in front (--trusted-proxy-count), used
	// when Networks is empty: the client is the Count-th entry from the
	// right.
	Count int
}

// ClientAddr is the address of r's client: the address the outermost
// trusted proxy saw when proxies are trusted, else the peer's host. A
// malformed hop stops the walk: the address is then the nearest hop to its
// right, which a trusted proxy reported (or the peer).
func (p Proxies) ClientAddr(r *http.Request) string {
	peer := peerHost(r.RemoteAddr)
	if !p.Trust {
		return peer
	}
	hops := forwardedHops(r)
	if len(p.Networks) == 0 {
		count := max(p.Count, 1)
		if count > len(hops) { // fewer hops than proxies: no entry is a proxy's
			return peer
		}
		for _, h := range hops[len(hops)-count:] {
			if a, ok := parseHop(h); ok {
				return a.String()
			}
		}
		return peer
	}
	client := peer
	addr, ok := parseHop(peer)
	for i := len(hops) - 1; ok && p.trusted(addr) && i >= 0; i-- {
		if addr, ok = parseHop(hops[i]); ok {
			client = addr.String()
		}
	}
	return client
}

// Trustworthy reports whether ClientAddr(r) is one client's own address,
// fit to count failures against: always when proxies are trusted (the hop
// a trusted proxy saw), and without trusted proxies only when r carries no
// forwarding header. A request that names a forwarding hop without
// trusted proxies came through a proxy the instance was not told of, or
// claims to: its peer may be that proxy, shared by everyone behind it, and
// counting it would let one person lock them all out.
func (p Proxies) Trustworthy(r *http.Request) bool {
	return p.Trust || (r.Header.Get("X-Forwarded-For") == "" && r.Header.Get("Forwarded") == "")
}

// trusted reports whether a is one of the trusted proxies.
func (p Proxies) trusted(a netip.Addr) bool {
	for _, n := range p.Networks {
		if n.Contains(a) {
			return true
		}
	}
	return false
}

// forwardedHops are the entries of every X-Forwarded-For line of r, in
// order (a proxy may add a line rather than extend the last one).
func forwardedHops(r *http.Request) []string {
	var hops []string
	for _, line := range r.Header.Values("X-Forwarded-For") {
		for _, h := range strings.Split(line, ",") {
			hops = append(hops, strings.TrimSpace(h))
		}
	}
	return hops
}

// parseHop reads one hop: an IPv4 or IPv6 address, with or without a port
// (and IPv6's brackets), its zone dropped and IPv4-mapped IPv6 unmapped.
func parseHop(s string) (netip.Addr, bool) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		s = ap.Addr().String()
	}
	a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	if err != nil {
		return netip.Addr{}, false
	}
	return a.WithZone("").Unmap(), true
}

// peerHost is the host of a connection's remote address.
func peerHost(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		return remote
	}
	return host
}
