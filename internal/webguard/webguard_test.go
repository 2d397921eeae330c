package webguard_test

import (
	"net/http/httptest"
	"testing"

	"github.com/bankrail/bankrail/internal/webguard"
)

// TestClientAddr: the peer's host, or the first X-Forwarded-For address
// when the proxy is trusted (and only then).
func TestClientAddr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, remote, xff string
		trust             bool
		want              string
	}{
		{"peer", "192.0.2.1:4321", "", false, "192.0.2.1"},
		{"peer without a port", "192.0.2.1", "", false, "192.0.2.1"},
		{"forwarded but not trusted", "192.0.2.1:4321", "198.51.100.7", false, "192.0.2.1"},
		{"forwarded and trusted", "192.0.2.1:4321", " 198.51.100.7 , 10.0.0.1", true, "198.51.100.7"},
		{"trusted without the header", "[2001:db8::1]:80", "", true, "2001:db8::1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.remote
			if tt.xff != "" {
				r.Header.Set("X-Forwarded-For", tt.xff)
			}
			if got := webguard.ClientAddr(r, tt.trust); got != tt.want {
				t.Fatalf("ClientAddr = %q, want %q", got, tt.want)
			}
		})
	}
}
