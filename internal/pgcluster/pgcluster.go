// Package pgcluster makes, for a test, a PostgreSQL primary and streaming
// standbys of the machine's own PostgreSQL binaries (Debian's
// /usr/lib/postgresql/<version>/bin: initdb, pg_basebackup, pg_ctl,
// pg_rewind), each on a free loopback port, in a temporary directory that
// the test's cleanup removes after stopping every server.
//
// It is what the failover test and the read-replica tests stand on:
//
//	c := pgcluster.Start(t, pgcluster.Options{Synchronous: true})
//	url := c.URL("postgres")   // both nodes, target_session_attrs=read-write
//	c.Kill(c.Primary())         // SIGKILL, as if the machine died
//	c.Promote(c.Standbys()[0])  // the standby takes over
//	c.Rewind(old)               // the old primary follows the new one
//	c.PauseReplication(ctx, s)  // lag: WAL stops reaching standby s
//
// Tests run as root here and initdb refuses root: the servers then run as
// the postgres user, with the directory owned by it. Start skips the test
// with a clear message when the binaries are missing, and fails it
// instead when BANKRAIL_REQUIRE_POSTGRES=1.
package pgcluster

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver
)

// Options shape a cluster.
type Options struct {
	// Standbys is the number of streaming standbys (default 1).
	Standbys int
	// Synchronous makes every commit on the primary wait until a standby
	// has flushed it (synchronous_standby_names = '*', synchronous_commit
	// = on); otherwise replication is asynchronous.
	Synchronous bool
	// ApplyDelay is the standbys' recovery_min_apply_delay: they receive
	// the WAL at once but replay it this much later (a promotion replays
	// what was received without waiting).
	ApplyDelay time.Duration
	// Settings are extra postgresql.conf lines for every node.
	Settings []string
}

// Node is one PostgreSQL server of the cluster.
type Node struct {
	Name string // n0, n1, ...: the standby's application_name too
	Port int    // its loopback TCP port
	Dir  string // its data directory

	primary bool
	running bool
}

// URL is a connection URL to this node alone, as user postgres.
func (n *Node) URL(database string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", n.Port, database)
}

// Cluster is a running primary with its standbys.
type Cluster struct {
	t    testing.TB
	bin  string
	dir  string
	opts Options
	run  runner

	mu    sync.Mutex
	nodes []*Node
}

// Start makes and starts a cluster; everything is stopped and removed when
// the test ends.
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	if opts.Standbys == 0 {
		opts.Standbys = 1
	}
	bin, err := findBinaries()
	if err != nil {
		if os.Getenv("BANKRAIL_REQUIRE_POSTGRES") == "1" {
			t.Fatalf("pgcluster: PostgreSQL is required (BANKRAIL_REQUIRE_POSTGRES=1) but %v", err)
		}
		t.Skipf("skipping: pgcluster needs PostgreSQL's server binaries and %v (install Debian's postgresql package; CI sets BANKRAIL_REQUIRE_POSTGRES=1 and fails instead)", err)
	}
	run, err := newRunner()
	if err != nil {
		t.Fatalf("pgcluster: %v", err)
	}
	dir, err := os.MkdirTemp("", "pgcluster-")
	if err != nil {
		t.Fatalf("pgcluster: %v", err)
	}
	c := &Cluster{t: t, bin: bin, dir: dir, opts: opts, run: run}
	t.Cleanup(c.stop)
	if err := run.own(dir); err != nil {
		t.Fatalf("pgcluster: %v", err)
	}
	if err := c.init(); err != nil {
		t.Fatalf("pgcluster: %v", err)
	}
	return c
}

// findBinaries is the newest /usr/lib/postgresql/<version>/bin holding
// every program the cluster needs (or PGCLUSTER_BIN).
func findBinaries() (string, error) {
	need := []string{"initdb", "pg_ctl", "pg_basebackup", "pg_rewind", "postgres"}
	var dirs []string
	if d := os.Getenv("PGCLUSTER_BIN"); d != "" {
		dirs = []string{d}
	} else {
		matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
		sort.Slice(matches, func(i, j int) bool { return versionOf(matches[i]) > versionOf(matches[j]) })
		dirs = matches
	}
next:
	for _, d := range dirs {
		for _, p := range need {
			if _, err := os.Stat(filepath.Join(d, p)); err != nil {
				continue next
			}
		}
		return d, nil
	}
	return "", fmt.Errorf("no directory /usr/lib/postgresql/<version>/bin (or PGCLUSTER_BIN) holds %s", strings.Join(need, ", "))
}

func versionOf(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// init makes the primary with initdb and each standby with pg_basebackup.
func (c *Cluster) init() error {
	primary, err := c.newNode(true)
	if err != nil {
		return err
	}
	if err := c.run.cmd(c.dir, c.bin, "initdb", "-D", primary.Dir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"); err != nil {
		return err
	}
	if err := c.appendInclude(primary); err != nil {
		return err
	}
	if err := c.startNode(primary); err != nil {
		return err
	}
	for i := 0; i < c.opts.Standbys; i++ {
		s, err := c.newNode(false)
		if err != nil {
			return err
		}
		if err := c.run.cmd(c.dir, c.bin, "pg_basebackup", "-D", s.Dir, "-h", "127.0.0.1", "-p", strconv.Itoa(primary.Port),
			"-U", "postgres", "-X", "stream", "--no-sync", "-c", "fast"); err != nil {
			return err
		}
		if err := c.startNode(s); err != nil {
			return err
		}
	}
	if err := c.WaitStreaming(context.Background(), primary, c.opts.Standbys); err != nil {
		return err
	}
	if !c.opts.Synchronous {
		return nil
	}
	if err := c.writeConf(primary, nil, true); err != nil {
		return err
	}
	return c.reload(primary)
}

// newNode reserves a port and a directory name for a node.
func (c *Cluster) newNode(primary bool) (*Node, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := &Node{Name: "n" + strconv.Itoa(len(c.nodes)), Port: port, primary: primary}
	n.Dir = filepath.Join(c.dir, n.Name)
	c.nodes = append(c.nodes, n)
	return n, nil
}

// freePort is a loopback TCP port nobody listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Primary is the node that takes writes now (nil after Kill until Promote).
func (c *Cluster) Primary() *Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.nodes {
		if n.primary && n.running {
			return n
		}
	}
	return nil
}

// Standbys are the running standbys.
func (c *Cluster) Standbys() []*Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*Node
	for _, n := range c.nodes {
		if !n.primary && n.running {
			out = append(out, n)
		}
	}
	return out
}

// Nodes are all nodes, running or not, in the order they were made.
func (c *Cluster) Nodes() []*Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*Node(nil), c.nodes...)
}

// URL is a multi-host URL naming every node, with
// target_session_attrs=read-write: a client connects to whichever is the
// primary, as an application would across a failover.
func (c *Cluster) URL(database string) string {
	var hosts []string
	for _, n := range c.Nodes() {
		hosts = append(hosts, "127.0.0.1:"+strconv.Itoa(n.Port))
	}
	return "postgres://postgres@" + strings.Join(hosts, ",") + "/" + database + "?sslmode=disable&target_session_attrs=read-write"
}

// Exec runs one SQL statement on a node (its postgres database).
func (c *Cluster) Exec(ctx context.Context, n *Node, query string, args ...any) error {
	db, err := sql.Open("pgx", n.URL("postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("%s on %s: %w", query, n.Name, err)
	}
	return nil
}

// WaitStreaming waits until primary has at least count standbys streaming.
func (c *Cluster) WaitStreaming(ctx context.Context, primary *Node, count int) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	db, err := sql.Open("pgx", primary.URL("postgres"))
	if err != nil {
		return err
	}
	defer db.Close()
	for {
		var got int
		err := db.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'`).Scan(&got)
		if err == nil && got >= count {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d standby(s) streaming from %s: still %d (%v)", count, primary.Name, got, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
