package config

import (
	"strings"
	"testing"
)

// --admin-addr is off by default, must be host:port and must not be the
// API's address (profiles are never served where the API is).
func TestAdminAddr(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ admin, want string }{
		{"", ""},
		{"127.0.0.1:6060", ""},
		{"127.0.0.1:0", ""},
		{"6060", "--admin-addr must be host:port"},
		{"127.0.0.1:8080", "--admin-addr must differ from --addr"},
	} {
		c := Default()
		c.AdminAddr = tt.admin
		err := c.Validate()
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("--admin-addr %q: %v, want %q", tt.admin, err, tt.want)
		}
	}
	if Default().AdminAddr != "" {
		t.Fatal("the admin listener is on by default")
	}
}
