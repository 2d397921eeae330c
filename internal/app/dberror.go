package app

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// databaseUnavailable turns a failed first connection to the PostgreSQL of
// databaseURL into one line that names the server and suggests what to
// check, instead of the driver's error, which repeats itself for every
// address and TLS attempt.
func databaseUnavailable(databaseURL string, err error) error {
	pc, perr := pgconn.ParseConfig(databaseURL)
	if perr != nil {
		return fmt.Errorf("--database-url is not a PostgreSQL URL or connection string (postgres://user:password@host:5432/database): %s", firstLine(perr.Error()))
	}
	where := pc.Host
	if !strings.HasPrefix(where, "/") { // not a Unix socket directory
		where = net.JoinHostPort(pc.Host, strconv.Itoa(int(pc.Port)))
	}
	const check = "check --database-url (BANKRAIL_DATABASE_URL)"
	var pgErr *pgconn.PgError
	var dnsErr *net.DNSError
	var netErr net.Error
	switch {
	case errors.As(err, &pgErr): // the server answered: credentials, database name, limits
		return fmt.Errorf("PostgreSQL at %s refused the connection as user %q to database %q: %s (SQLSTATE %s); %s",
			where, pc.User, pc.Database, pgErr.Message, pgErr.Code, check)
	case errors.As(err, &dnsErr):
		return fmt.Errorf("cannot connect to PostgreSQL at %s: the host name %q does not resolve; %s", where, pc.Host, check)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("cannot connect to PostgreSQL at %s: connection refused. Is PostgreSQL running and listening there? If not, start it or %s", where, check)
	case errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Errorf("cannot connect to PostgreSQL at %s: no answer (timed out). Is the host reachable and PostgreSQL running? %s", where, strings.ToUpper(check[:1])+check[1:])
	}
	return fmt.Errorf("cannot connect to PostgreSQL at %s: %s. Is PostgreSQL running? %s", where, lastLine(err.Error()), strings.ToUpper(check[:1])+check[1:])
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}

// lastLine is the last non-empty line of s: the driver's innermost cause.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
