package config

import (
	"strings"
	"testing"
	"time"
)

// The database's timeouts and the report generation's settings: each out
// of range is refused naming its flag; zeros take the defaults.
func TestValidateDatabase(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		set  func(*Config)
		want string // "" : valid
	}{
		{"defaults", func(*Config) {}, ""},
		{"connect timeout too short", func(c *Config) { c.DatabaseConnectTimeout = time.Millisecond }, "--database-connect-timeout"},
		{"connect timeout too long", func(c *Config) { c.DatabaseConnectTimeout = time.Hour }, "--database-connect-timeout"},
		{"request timeout negative", func(c *Config) { c.RequestTimeout = -time.Second }, "--request-timeout"},
		{"request timeout too long", func(c *Config) { c.RequestTimeout = time.Hour }, "--request-timeout"},
		{"keepalive too short", func(c *Config) { c.DatabaseKeepalive = 10 * time.Millisecond }, "--database-keepalive"},
		{"report concurrency too high", func(c *Config) { c.ReportConcurrency = 65 }, "--report-concurrency"},
		{"report nice too high", func(c *Config) { c.ReportNice = 20 }, "--report-nice"},
		{"report nice negative", func(c *Config) { c.ReportNice = -1 }, "--report-nice"},
		{"report nice off", func(c *Config) { c.ReportNice = 0 }, ""},
		{"report duty cycle negative", func(c *Config) { c.ReportDutyCycle = -1 }, "--report-duty-cycle"},
		{"report duty cycle above 100", func(c *Config) { c.ReportDutyCycle = 101 }, "--report-duty-cycle"},
		{"report duty cycle 1", func(c *Config) { c.ReportDutyCycle = 1 }, ""},
		{"report duty cycle never rests", func(c *Config) { c.ReportDutyCycle = 100 }, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Default()
			tt.set(&c)
			err := c.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Validate: %v; want an error naming %s", err, tt.want)
			}
		})
	}
	var c Config // not made by Default: the zeros take the defaults
	c.validateDatabase(func(string, ...any) { t.Error("a zero setting was refused") })
	if c.RequestTimeout != DefaultRequestTimeout || c.DatabaseConnectTimeout != DefaultDatabaseConnectTimeout ||
		c.DatabaseKeepalive != DefaultDatabaseKeepalive || c.ReportConcurrency != DefaultReportConcurrency ||
		c.ReportDutyCycle != DefaultReportDutyCycle {
		t.Errorf("zeros became %+v", c)
	}
}
