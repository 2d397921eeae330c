package config

import (
	"strings"
	"testing"
	"time"
)

// The replica's settings: PostgreSQL only, a postgres URL, a bound and an
// interval that make sense; each refusal says which flag.
func TestValidateReplica(t *testing.T) {
	t.Parallel()
	const pg = "postgres://bankrail@primary:5432/db"
	for _, tt := range []struct {
		name             string
		database, url    string
		maxLag, interval time.Duration
		want             string // "" when valid
	}{
		{"none", "", "", 0, 0, ""},
		{"a standby of PostgreSQL", pg, "postgres://ro:secret@standby:5432/db", 0, 0, ""},
		{"SQLite", "", "postgres://standby/db", 0, 0, "--replica-url needs PostgreSQL (--database-url)"},
		{"not postgres", pg, "mysql://standby/db", 0, 0, "--replica-url must start with postgres://"},
		{"a tiny bound", pg, "postgres://standby/db", 10 * time.Millisecond, 0, "--replica-max-lag must be at least 100ms"},
		{"checks rarer than the bound", pg, "postgres://standby/db", time.Second, 2 * time.Second, "--replica-check-interval must be between 10ms and --replica-max-lag"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Default()
			c.DatabaseURL, c.ReplicaURL = tt.database, tt.url
			if tt.maxLag != 0 {
				c.ReplicaMaxLag = tt.maxLag
			}
			if tt.interval != 0 {
				c.ReplicaCheckInterval = tt.interval
			}
			err := c.Validate()
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("Validate: %v, want %q", err, tt.want)
			}
		})
	}
	c := Default()
	c.ReplicaURL = "postgres://ro:secret@standby:5432/db"
	if d := c.ReplicaDescription(); strings.Contains(d, "secret") || !strings.Contains(d, "standby:5432") {
		t.Fatalf("ReplicaDescription %q", d)
	}
}
