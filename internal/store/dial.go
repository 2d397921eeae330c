package store

import (
	"context"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Timeouts are the bounds the store puts on the database's connections
// (docs/operations.md, "Timeouts and network partitions").
type Timeouts struct {
	// Connect bounds one attempt to connect to one host (pgx's
	// ConnectTimeout; a connect_timeout in the URL wins). 0: none.
	Connect time.Duration
	// Keepalive is how soon TCP finds a connection whose peer is gone:
	// keepalive probes after Keepalive/2 idle, every Keepalive/6, three
	// unanswered ones close it; on Linux TCP_USER_TIMEOUT closes one whose
	// sent data stays unacknowledged for Keepalive. 0: the system's.
	Keepalive time.Duration
	// Statement bounds the store's own statements that no request's
	// context bounds: a group commit's BEGIN, SAVEPOINT and COMMIT, the
	// coalesced count of the API rate limit. 0: none.
	Statement time.Duration
}

// bound applies t to a connection's configuration.
func (t Timeouts) bound(cfg *pgx.ConnConfig) {
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = t.Connect
	}
	if t.Keepalive <= 0 {
		return
	}
	d := &net.Dialer{
		KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: t.Keepalive / 2, Interval: t.Keepalive / 6, Count: 3},
		Control: func(network, _ string, c syscall.RawConn) error {
			if !strings.HasPrefix(network, "tcp") {
				return nil
			}
			var serr error
			if err := c.Control(func(fd uintptr) { serr = userTimeout(fd, t.Keepalive) }); err != nil {
				return err
			}
			return serr
		},
	}
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}
}

// statementContext is the context of one of the store's own statements
// (Timeouts.Statement).
func (s *Store) statementContext() (context.Context, context.CancelFunc) {
	return s.detached(context.Background())
}

// detached is ctx without its cancellation (for work that several
// requests wait for), bounded by Timeouts.Statement instead.
func (s *Store) detached(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx = context.WithoutCancel(ctx)
	if s.timeouts.Statement <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, s.timeouts.Statement)
}
