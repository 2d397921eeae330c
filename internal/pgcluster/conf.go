package pgcluster

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// confName is the file every node's postgresql.conf includes: the node's
// own settings, rewritten whenever its role changes (pg_basebackup and
// pg_rewind copy the source's).
const confName = "pgcluster.conf"

// appendInclude makes the primary's postgresql.conf include confName (the
// standbys inherit the line through pg_basebackup).
func (c *Cluster) appendInclude(n *Node) error {
	f, err := os.OpenFile(filepath.Join(n.Dir, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("include %s: %w", confName, err)
	}
	if _, err := fmt.Fprintf(f, "\ninclude '%s'\n", confName); err != nil {
		_ = f.Close()
		return fmt.Errorf("include %s: %w", confName, err)
	}
	return f.Close()
}

// writeConf writes n's settings for its role: a primary (synchronous when
// the options say so and a standby follows it) or a standby of upstream.
func (c *Cluster) writeConf(n *Node, upstream *Node, synchronous bool) error {
	lines := []string{
		"listen_addresses = '127.0.0.1'",
		fmt.Sprintf("port = %d", n.Port),
		fmt.Sprintf("unix_socket_directories = '%s'", c.dir), // not the data directory: pg_basebackup and pg_rewind copy that
		"wal_level = replica",
		"max_wal_senders = 10",
		"max_replication_slots = 10",
		"wal_log_hints = on", // pg_rewind needs it (or data checksums)
		"wal_keep_size = '1GB'",
		"hot_standby = on",
		"fsync = off", // a SIGKILL keeps the kernel's page cache: nothing is lost by it
		"shared_buffers = '32MB'",
		"max_connections = 200",
		"synchronous_commit = on",
		"wal_receiver_status_interval = '1s'",
		"log_min_messages = warning",
		"log_line_prefix = '%m [%p] '",
	}
	if synchronous {
		lines = append(lines, "synchronous_standby_names = '*'")
	} else {
		lines = append(lines, "synchronous_standby_names = ''")
	}
	if upstream != nil {
		lines = append(lines, fmt.Sprintf("primary_conninfo = 'host=127.0.0.1 port=%d user=postgres application_name=%s'", upstream.Port, n.Name))
		if c.opts.ApplyDelay > 0 {
			lines = append(lines, fmt.Sprintf("recovery_min_apply_delay = '%dms'", c.opts.ApplyDelay.Milliseconds()))
		}
	}
	lines = append(lines, c.opts.Settings...)
	if err := c.run.write(filepath.Join(n.Dir, confName), strings.Join(lines, "\n")+"\n"); err != nil {
		return err
	}
	signal := filepath.Join(n.Dir, "standby.signal")
	if upstream != nil {
		return c.run.write(signal, "")
	}
	if err := os.Remove(signal); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("remove standby.signal: %w", err)
	}
	return nil
}
