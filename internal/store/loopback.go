package store

import (
	"net"
	"os"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// plainOnLoopback turns TLS off for a PostgreSQL on this machine when the
// database URL does not ask for it: libpq's and pgx's default (sslmode
// prefer) encrypts a loopback or Unix-socket connection, which no one else
// can read, for nothing but CPU on both sides of every round trip. A URL
// (or PGSSLMODE) that names an sslmode keeps it, whatever the host; a
// remote host keeps the default.
func plainOnLoopback(cfg *pgx.ConnConfig, databaseURL string) {
	if strings.Contains(databaseURL, "sslmode") || os.Getenv("PGSSLMODE") != "" {
		return
	}
	if !loopback(cfg.Host) {
		return
	}
	for _, f := range cfg.Fallbacks {
		if !loopback(f.Host) {
			return
		}
	}
	cfg.TLSConfig = nil
	var plain []*pgconn.FallbackConfig // each host once, without TLS (prefer listed each twice)
	for _, f := range cfg.Fallbacks {
		if f.TLSConfig == nil && (f.Host != cfg.Host || f.Port != cfg.Port) {
			plain = append(plain, f)
		}
	}
	cfg.Fallbacks = plain
}

// loopback reports a host on this machine: a Unix socket's directory, a
// loopback address, or localhost.
func loopback(host string) bool {
	if strings.HasPrefix(host, "/") || host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
