package config

import "time"

// Defaults of the database's timeouts and of report generation.
const (
	// DefaultDatabaseConnectTimeout bounds one connection attempt to one
	// host of the database URL (a multi-host URL tries the next after it).
	DefaultDatabaseConnectTimeout = 5 * time.Second
	// DefaultRequestTimeout is how long a request may wait before its
	// answer begins: well above any request's usual time (milliseconds),
	// well below a client's patience and --write-timeout.
	DefaultRequestTimeout = 30 * time.Second
	// DefaultDatabaseKeepalive is how soon TCP finds a database
	// connection whose peer is gone.
	DefaultDatabaseKeepalive = 30 * time.Second
	// DefaultReportConcurrency is how many reports an instance generates
	// at once: each takes a core's worth of formatting when it may.
	DefaultReportConcurrency = 2
	// DefaultReportNice is the lowest CPU priority.
	DefaultReportNice = 19
	// DefaultReportDutyCycle is the percent of the time a generation works
	// while the API is busy: report.DefaultDutyCycle.
	DefaultReportDutyCycle = 25
)

// validateDatabase checks the database's timeouts and the report
// generation's settings; a zero (a Config not made by Default) takes the
// default.
func (c *Config) validateDatabase(add func(string, ...any)) {
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&c.DatabaseConnectTimeout, DefaultDatabaseConnectTimeout}, {&c.RequestTimeout, DefaultRequestTimeout},
		{&c.DatabaseKeepalive, DefaultDatabaseKeepalive}} {
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	if c.ReportConcurrency == 0 {
		c.ReportConcurrency = DefaultReportConcurrency
	}
	if c.ReportDutyCycle == 0 {
		c.ReportDutyCycle = DefaultReportDutyCycle
	}
	if c.DatabaseConnectTimeout < 100*time.Millisecond || c.DatabaseConnectTimeout > time.Minute {
		add("--database-connect-timeout must be from 100ms to 1m, got %s", c.DatabaseConnectTimeout)
	}
	if c.RequestTimeout < 100*time.Millisecond || c.RequestTimeout > 10*time.Minute {
		add("--request-timeout must be from 100ms to 10m, got %s", c.RequestTimeout)
	}
	if c.DatabaseKeepalive < time.Second || c.DatabaseKeepalive > 10*time.Minute {
		add("--database-keepalive must be from 1s to 10m, got %s", c.DatabaseKeepalive)
	}
	if c.ReportConcurrency < 1 || c.ReportConcurrency > 64 {
		add("--report-concurrency must be from 1 to 64, got %d", c.ReportConcurrency)
	}
	if c.ReportNice < 0 || c.ReportNice > 19 {
		add("--report-nice must be from 0 (off) to 19 (the lowest priority), got %d", c.ReportNice)
	}
	if c.ReportDutyCycle < 1 || c.ReportDutyCycle > 100 {
		add("--report-duty-cycle must be a percent from 1 to 100 (never rests), got %d", c.ReportDutyCycle)
	}
}
