package store_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/store"
)

// A lost or refused database connection is SERVICE_UNAVAILABLE with
// Retry-After (the HTTP adapter answers it 503); every other error keeps
// what it was.
func TestUnavailable(t *testing.T) {
	t.Parallel()
	refused := connectRefused(t)
	notFound := errs.NotFoundf("payment x was not found.")
	for _, c := range []struct {
		name        string
		err         error
		unavailable bool
	}{
		{"postmaster died (57P01)", &pgconn.PgError{Code: "57P01", Message: "terminating connection due to unexpected postmaster exit"}, true},
		{"crash shutdown (57P02)", &pgconn.PgError{Code: "57P02"}, true},
		{"starting up (57P03)", &pgconn.PgError{Code: "57P03"}, true},
		{"connection failure (08006)", &pgconn.PgError{Code: "08006"}, true},
		{"too many connections (53300)", &pgconn.PgError{Code: "53300"}, true},
		{"a standby (25006)", &pgconn.PgError{Code: "25006"}, true},
		{"refused connect", fmt.Errorf("list payments: %w", refused), true},
		{"cut mid-answer", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{"closed conn", fmt.Errorf("query: %w", pgconn.ErrConnClosed), true},
		{"bad conn", driver.ErrBadConn, true},
		{"a statement past its deadline (a partition)", fmt.Errorf("count an API request: timeout: %w", context.DeadlineExceeded), true},
		{"a request cancelled", fmt.Errorf("list payments: %w", context.Canceled), false},
		{"unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"deadlock", &pgconn.PgError{Code: "40P01"}, false},
		{"not found", notFound, false},
		{"a plain error", errors.New("boom"), false},
		{"nil", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := store.Unavailable(c.err)
			var e *errs.Error
			isUnavailable := errors.As(got, &e) && e.Code == errs.Unavailable
			switch {
			case isUnavailable != c.unavailable:
				t.Fatalf("Unavailable(%v) = %v; want unavailable %v", c.err, got, c.unavailable)
			case c.unavailable && (e.RetryAfter != store.UnavailableRetryAfter || !errors.Is(got, c.err)):
				t.Fatalf("Unavailable(%v) = %+v; want Retry-After %v and the cause kept", c.err, e, store.UnavailableRetryAfter)
			case !c.unavailable && got != c.err:
				t.Fatalf("Unavailable(%v) = %v; want it unchanged", c.err, got)
			}
		})
	}
}

// connectRefused is the driver's error for a port nobody listens on.
func connectRefused(t *testing.T) error {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().(*net.TCPAddr)
	l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgconn.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/x?connect_timeout=2", addr.Port))
	if err == nil {
		conn.Close(ctx)
		t.Fatal("connected to a closed port")
	}
	return err
}
