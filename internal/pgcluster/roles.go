package pgcluster

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// startNode writes n's settings for its role and starts it, waiting until
// it accepts connections.
func (c *Cluster) startNode(n *Node) error {
	var upstream *Node
	if !n.primary {
		upstream = c.Primary()
		if upstream == nil {
			return fmt.Errorf("start standby %s: no running primary", n.Name)
		}
	}
	synchronous := n.primary && c.opts.Synchronous && len(c.Standbys()) > 0
	if err := c.writeConf(n, upstream, synchronous); err != nil {
		return err
	}
	if err := c.run.own(n.Dir); err != nil {
		return err
	}
	// A killed server leaves its socket's lock file behind, which would
	// stop the next start.
	sock := filepath.Join(c.dir, fmt.Sprintf(".s.PGSQL.%d", n.Port))
	_ = os.Remove(sock + ".lock")
	_ = os.Remove(sock)
	if err := c.run.cmd(c.dir, c.bin, "pg_ctl", "start", "-w", "-t", "120", "-D", n.Dir, "-l", c.logPath(n)); err != nil {
		return err
	}
	c.mu.Lock()
	n.running = true
	c.mu.Unlock()
	return nil
}

func (c *Cluster) logPath(n *Node) string { return filepath.Join(c.dir, n.Name+".log") }

// Kill SIGKILLs node n's server and all its processes, as if its machine
// had died: clients' connections to it break at once.
func (c *Cluster) Kill(n *Node) error {
	pid, err := postmasterPID(n.Dir)
	if err != nil {
		return fmt.Errorf("kill %s: %w", n.Name, err)
	}
	c.mu.Lock()
	n.running = false
	c.mu.Unlock()
	if err := killTree(pid); err != nil {
		return fmt.Errorf("kill %s: %w", n.Name, err)
	}
	return nil
}

// Promote makes standby n the primary (pg_ctl promote, waiting until it
// takes writes) and points the other running standbys at it. With
// synchronous replication and no other standby left, the new primary
// commits alone (synchronous_standby_names = ”) until Rewind gives it a
// standby: otherwise every commit would wait for ever.
func (c *Cluster) Promote(n *Node) error {
	if n.primary || !n.running {
		return fmt.Errorf("promote %s: not a running standby", n.Name)
	}
	if err := c.run.cmd(c.dir, c.bin, "pg_ctl", "promote", "-w", "-t", "120", "-D", n.Dir); err != nil {
		return err
	}
	c.mu.Lock()
	for _, o := range c.nodes {
		if o.primary && !o.running {
			o.primary = false // dead; Rewind brings it back as a standby
		}
	}
	n.primary = true
	c.mu.Unlock()
	others := c.Standbys()
	if err := c.writeConf(n, nil, c.opts.Synchronous && len(others) > 0); err != nil {
		return err
	}
	if err := c.reload(n); err != nil {
		return err
	}
	for _, s := range others {
		if err := c.writeConf(s, n, false); err != nil {
			return err
		}
		if err := c.reload(s); err != nil {
			return err
		}
	}
	return nil
}

// Rewind brings the stopped or killed node n back as a standby of the
// current primary: pg_rewind (after crash recovery of n, which pg_rewind
// runs itself) takes n back to where the timelines parted, and n then
// streams from the primary. Synchronous replication is then on again.
func (c *Cluster) Rewind(n *Node) error {
	p := c.Primary()
	if p == nil || n.running {
		return fmt.Errorf("rewind %s: needs a running primary and %s stopped", n.Name, n.Name)
	}
	ctx := context.Background()
	// pg_rewind reads the source's timeline from its control file, which
	// the promotion's checkpoint writes: make sure it has happened.
	if err := c.Exec(ctx, p, "CHECKPOINT"); err != nil {
		return err
	}
	_ = os.Remove(filepath.Join(n.Dir, "postmaster.pid")) // a killed server's; pg_rewind refuses a running one
	if err := c.run.cmd(c.dir, c.bin, "pg_rewind", "--target-pgdata", n.Dir, "--no-sync",
		"--source-server", fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=postgres", p.Port)); err != nil {
		return err
	}
	c.mu.Lock()
	n.primary = false
	c.mu.Unlock()
	if err := c.startNode(n); err != nil {
		return err
	}
	if err := c.WaitStreaming(ctx, p, len(c.Standbys())); err != nil {
		return err
	}
	if c.opts.Synchronous {
		if err := c.writeConf(p, nil, true); err != nil {
			return err
		}
		return c.reload(p)
	}
	return nil
}

// PauseReplication stops (SIGSTOP) the primary's WAL sender to standby n,
// as a network that stopped carrying the WAL: a synchronous primary's
// commits wait for n, an asynchronous one's go on and are not on n. resume
// sends it on again (a no-op once the primary is dead).
func (c *Cluster) PauseReplication(ctx context.Context, n *Node) (resume func(), err error) {
	p := c.Primary()
	if p == nil {
		return nil, fmt.Errorf("pause replication to %s: no running primary", n.Name)
	}
	db, err := sql.Open("pgx", p.URL("postgres"))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var pid int
	if err := db.QueryRowContext(ctx, `SELECT pid FROM pg_stat_replication WHERE application_name = $1`, n.Name).Scan(&pid); err != nil {
		return nil, fmt.Errorf("WAL sender to %s: %w", n.Name, err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return nil, fmt.Errorf("pause WAL sender to %s: %w", n.Name, err)
	}
	return func() { _ = syscall.Kill(pid, syscall.SIGCONT) }, nil
}

// reload makes a running node read its settings again.
func (c *Cluster) reload(n *Node) error {
	return c.Exec(context.Background(), n, "SELECT pg_reload_conf()")
}

// stop stops every running server and removes the directory; when the
// test failed, the end of each server's log goes to the test's log.
func (c *Cluster) stop() {
	for _, n := range c.Nodes() {
		if n.running {
			if err := c.run.cmd(c.dir, c.bin, "pg_ctl", "stop", "-m", "immediate", "-w", "-D", n.Dir); err != nil {
				c.t.Logf("pgcluster: stop %s: %v", n.Name, err)
			}
		}
		if c.t.Failed() {
			if b, err := os.ReadFile(c.logPath(n)); err == nil {
				lines := strings.Split(strings.TrimSpace(string(b)), "\n")
				if len(lines) > 30 {
					lines = lines[len(lines)-30:]
				}
				c.t.Logf("pgcluster: end of %s's log (port %d):\n%s", n.Name, n.Port, strings.Join(lines, "\n"))
			}
		}
	}
	if err := os.RemoveAll(c.dir); err != nil {
		c.t.Logf("pgcluster: remove %s: %v", c.dir, err)
	}
}
