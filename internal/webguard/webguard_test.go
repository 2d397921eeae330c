package webguard_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/bankrail/bankrail/internal/webguard"
)

// TestClientAddr: the peer's host, or, when proxies are trusted, the
// address the outermost trusted proxy saw: never an entry the client wrote
// to the left of it (issue 28, item 4).
func TestClientAddr(t *testing.T) {
	t.Parallel()
	off := webguard.Proxies{}
	one := webguard.Proxies{Trust: true, Count: 1}
	dflt := webguard.Proxies{Trust: true} // a count of 0 is one proxy
	two := webguard.Proxies{Trust: true, Count: 2}
	nets := webguard.Proxies{Trust: true, Networks: []netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8:ffff::/48")}}
	tests := []struct {
		name, remote string
		xff          []string // header lines
		proxies      webguard.Proxies
		want         string
	}{
		{"peer", "192.0.2.1:4321", nil, off, "192.0.2.1"},
		{"peer without a port", "192.0.2.1", nil, off, "192.0.2.1"},
		{"forwarded but not trusted", "192.0.2.1:4321", []string{"198.51.100.7"}, off, "192.0.2.1"},
		{"trusted without the header", "[2001:db8::1]:80", nil, one, "2001:db8::1"},
		{"one proxy", "10.0.0.1:80", []string{"198.51.100.7"}, one, "198.51.100.7"},
		{"one proxy by default", "10.0.0.1:80", []string{"198.51.100.7"}, dflt, "198.51.100.7"},
		{"one proxy, spoofed leftmost", "10.0.0.1:80", []string{" 6.6.6.6 , 198.51.100.7 "}, one, "198.51.100.7"},
		{"one proxy, spoofed line of its own", "10.0.0.1:80", []string{"6.6.6.6", "198.51.100.7"}, one, "198.51.100.7"},
		{"two proxies, spoofed leftmost", "10.0.0.2:80", []string{"6.6.6.6, 7.7.7.7, 198.51.100.7, 10.0.0.1"}, two, "198.51.100.7"},
		{"two proxies, one hop", "10.0.0.2:80", []string{"198.51.100.7"}, two, "10.0.0.2"},
		{"one proxy, malformed hop", "10.0.0.1:80", []string{"not-an-address"}, one, "10.0.0.1"},
		{"two proxies, malformed client hop", "10.0.0.2:80", []string{"garbage, 10.0.0.1"}, two, "10.0.0.1"},
		{"one proxy, empty header", "10.0.0.1:80", []string{""}, one, "10.0.0.1"},
		{"one proxy, IPv6", "[2001:db8:ffff::1]:443", []string{"2001:db8:1::5"}, one, "2001:db8:1::5"},
		{"one proxy, IPv6 with brackets and port", "10.0.0.1:80", []string{"[2001:db8:1::5]:5555"}, one, "2001:db8:1::5"},
		{"one proxy, IPv4 with port", "10.0.0.1:80", []string{"198.51.100.7:5555"}, one, "198.51.100.7"},
		{"one proxy, IPv4-mapped IPv6", "10.0.0.1:80", []string{"::ffff:198.51.100.7"}, one, "198.51.100.7"},
		{"networks: right-most untrusted hop", "10.0.0.2:80", []string{"6.6.6.6, 198.51.100.7, 10.0.0.1"}, nets, "198.51.100.7"},
		{"networks: IPv6 proxies", "[2001:db8:ffff::2]:443", []string{"6.6.6.6, 2001:db8:1::5, 2001:db8:ffff::1"}, nets, "2001:db8:1::5"},
		{"networks: peer not a proxy", "192.0.2.1:4321", []string{"198.51.100.7"}, nets, "192.0.2.1"},
		{"networks: malformed hop", "10.0.0.2:80", []string{"6.6.6.6, bogus, 10.0.0.1"}, nets, "10.0.0.1"},
		{"networks: only proxies", "10.0.0.2:80", []string{"10.0.0.3, 10.0.0.1"}, nets, "10.0.0.3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.remote
			for _, line := range tt.xff {
				r.Header.Add("X-Forwarded-For", line)
			}
			if got := tt.proxies.ClientAddr(r); got != tt.want {
				t.Fatalf("ClientAddr = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestTrustworthy: an address is counted against only when it is one
// client's: through trusted proxies always, without them only when no
// forwarding header says a proxy (which many may share) sent the request.
func TestTrustworthy(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		proxies webguard.Proxies
		header  map[string]string
		want    bool
	}{
		{"direct", webguard.Proxies{}, nil, true},
		{"an untold proxy's X-Forwarded-For", webguard.Proxies{}, map[string]string{"X-Forwarded-For": "198.51.100.7"}, false},
		{"an untold proxy's Forwarded", webguard.Proxies{}, map[string]string{"Forwarded": "for=198.51.100.7"}, false},
		{"a trusted proxy", webguard.Proxies{Trust: true, Count: 1}, map[string]string{"X-Forwarded-For": "198.51.100.7"}, true},
		{"trusted proxies, none in the way", webguard.Proxies{Trust: true, Count: 1}, nil, true},
	} {
		r := httptest.NewRequest(http.MethodPost, "/oauth", nil)
		for k, v := range c.header {
			r.Header.Set(k, v)
		}
		if got := c.proxies.Trustworthy(r); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
