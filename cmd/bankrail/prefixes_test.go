package main

import (
	"fmt"
	"net/netip"
	"testing"
)

// TestParsePrefixes: --trusted-proxies takes networks and bare addresses,
// IPv4 and IPv6, and refuses anything else with the entry named.
func TestParsePrefixes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string // want: the prefixes, or "error"
	}{
		{"10.0.0.0/8", "[10.0.0.0/8]"},
		{" 10.1.2.3/8 , 2001:db8::/32,", "[10.0.0.0/8 2001:db8::/32]"},
		{"192.0.2.7", "[192.0.2.7/32]"},
		{"::1", "[::1/128]"},
		{"", "[]"},
		{"10.0.0.0/8,nonsense", "error"},
		{"10.0.0.0/33", "error"},
	}
	for _, tt := range tests {
		var got []netip.Prefix
		err := parsePrefixes(tt.in, &got)
		switch {
		case tt.want == "error" && err == nil:
			t.Errorf("parsePrefixes(%q) = %v, want an error", tt.in, got)
		case tt.want != "error" && (err != nil || fmt.Sprint(got) != tt.want):
			t.Errorf("parsePrefixes(%q) = %v, %v, want %s", tt.in, got, err, tt.want)
		}
	}
}
