package store

import (
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestPlainOnLoopback: a database URL that names no sslmode connects
// without TLS to a loopback address, localhost or a Unix socket (and tries
// each host once); a remote host, or any sslmode named, keeps what pgx
// makes of it.
func TestPlainOnLoopback(t *testing.T) {
	t.Setenv("PGSSLMODE", "")
	for _, c := range []struct {
		url       string
		wantPlain bool
	}{
		{"postgres://u@127.0.0.1:5432/db", true},
		{"postgres://u@[::1]:5432/db", true},
		{"postgres://u@localhost/db", true},
		{"host=/var/run/postgresql user=u dbname=db", true},
		{"postgres://u@db.example.com/db", false},
		{"postgres://u@127.0.0.1,db.example.com/db", false},
		{"postgres://u@127.0.0.1/db?sslmode=require", false},
		{"postgres://u@127.0.0.1/db?sslmode=disable", true}, // pgx's own: no TLS either way
	} {
		cfg, err := pgx.ParseConfig(c.url)
		if err != nil {
			t.Fatalf("%s: %v", c.url, err)
		}
		plainOnLoopback(cfg, c.url)
		tls := cfg.TLSConfig != nil
		for _, f := range cfg.Fallbacks {
			tls = tls || f.TLSConfig != nil
			if !c.wantPlain {
				continue
			}
			if f.Host == cfg.Host && f.Port == cfg.Port {
				t.Errorf("%s: the host is tried twice", c.url)
			}
		}
		if tls == c.wantPlain {
			t.Errorf("%s: TLS %v, want %v", c.url, tls, !c.wantPlain)
		}
	}
}
