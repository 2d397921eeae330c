package config

import (
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestDefaultIsValidAndDerivesPublicURL(t *testing.T) {
	t.Parallel()
	c := Default()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.PublicURL != "http://127.0.0.1:8080" || c.Issuer != DefaultIssuer {
		t.Fatalf("PublicURL=%q Issuer=%q", c.PublicURL, c.Issuer)
	}
}

// The issuer never comes from the listen address: instances sharing a
// database must agree on it (issue 11, item 7).
func TestIssuer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                    string
		addr, publicURL, issuer string
		want                    string
	}{
		{"default", "127.0.0.1:8080", "", "", DefaultIssuer},
		{"another address, same issuer", "10.0.0.2:9090", "", "", DefaultIssuer},
		{"explicit public URL", "127.0.0.1:8080", "https://pay.example/", "", "https://pay.example"},
		{"explicit issuer", "127.0.0.1:8080", "https://pay.example", "urn:bankrail:prod", "urn:bankrail:prod"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			c.Addr, c.PublicURL, c.Issuer = tt.addr, tt.publicURL, tt.issuer
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			if c.Issuer != tt.want {
				t.Fatalf("Issuer = %q, want %q", c.Issuer, tt.want)
			}
		})
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"mode", func(c *Config) { c.Mode = "staging" }, "--mode"},
		{"addr", func(c *Config) { c.Addr = "nonsense" }, "--addr"},
		{"database url", func(c *Config) { c.DatabaseURL = "mysql://x" }, "--database-url"},
		{"public url", func(c *Config) { c.PublicURL = "ftp://x" }, "--public-url"},
		{"log level", func(c *Config) { c.LogLevel = "loud" }, "--log-level"},
		{"durations", func(c *Config) { c.IdempotencyTTL = 0 }, "idempotency TTL"},
		{"maximum payment", func(c *Config) { c.MaxPaymentMajor = 0 }, "maximum payment amount"},
		{"rate limit", func(c *Config) { c.APIRateLimit = -1 }, "--api-rate-limit"},
		{"rate window", func(c *Config) { c.APIRateWindow = time.Millisecond }, "--api-rate-window"},
		{"maximum payment overflows", func(c *Config) { c.MaxPaymentMajor = 1 << 62 }, "--max-payment-major"},
		{"ledger verify interval zero", func(c *Config) { c.LedgerVerifyInterval = 0 }, "--ledger-verify-interval must be at least 1s"},
		{"trusted proxy count negative", func(c *Config) { c.TrustProxyHeaders, c.TrustedProxyCount = true, -1 }, "--trusted-proxy-count"},
		{"trusted proxies without trusting headers", func(c *Config) { c.TrustedProxyCount = 2 }, "need --trust-proxy-headers"},
		{"trusted proxies named and counted", func(c *Config) {
			c.TrustProxyHeaders, c.TrustedProxyCount = true, 2
			c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
		}, "exclude each other"},
		{"ledger verify interval too short", func(c *Config) { c.LedgerVerifyInterval = time.Millisecond }, "--ledger-verify-interval"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Default()
			tt.edit(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate() = %v, want mention of %q", err, tt.want)
			}
		})
	}
}

func TestDatabaseDescriptionHidesPassword(t *testing.T) {
	t.Parallel()
	c := Default()
	c.DatabaseURL = "postgres://app:s3cret@db:5432/bankrail"
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if d := c.DatabaseDescription(); strings.Contains(d, "s3cret") {
		t.Fatalf("description leaks the password: %s", d)
	}
}

// TestTrustedProxiesDefault: trusting the headers without naming or counting
// the proxies means one proxy in front (issue 28, item 4).
func TestTrustedProxiesDefault(t *testing.T) {
	t.Parallel()
	c := Default()
	c.TrustProxyHeaders = true
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.TrustedProxyCount != 1 {
		t.Fatalf("TrustedProxyCount = %d, want 1", c.TrustedProxyCount)
	}
}
