package store_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/store"
)

// positions are WAL positions the test sets; the replica catches up to
// the primary at its catchUp-th read, when that is set.
type positions struct {
	primary, replayed atomic.Uint64
	reads, catchUp    atomic.Int64
}

func (p *positions) Primary(context.Context) (uint64, error) { return p.primary.Load(), nil }
func (p *positions) Replayed(context.Context) (uint64, error) {
	if n := p.catchUp.Load(); n > 0 && p.reads.Add(1) >= n {
		p.replayed.Store(p.primary.Load())
	}
	return p.replayed.Load(), nil
}

// openWithReplica opens a store on db whose replica is at replicaURL.
func openWithReplica(t *testing.T, db dbtest.DB, replicaURL string) (*store.Store, error) {
	t.Helper()
	s, err := store.Open(context.Background(), store.Options{DatabaseURL: db.DatabaseURL, SQLitePath: db.SQLitePath,
		ReplicaURL: replicaURL, ReplicaMaxLag: 200 * time.Millisecond}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil {
		t.Cleanup(func() { s.Close() })
	}
	return s, err
}

// SQLite refuses a replica with the reason; on PostgreSQL a report reads
// on the replica only once it has replayed the primary's position of the
// report's start, waiting at most the bound (a second connection to the
// same database stands for the replica, its positions set by the test).
func TestReplicaReportWaitsForTheReplica(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		t.Parallel()
		ctx := context.Background()
		if db.Engine == dbtest.SQLite {
			_, err := openWithReplica(t, db, "postgres://127.0.0.1:1/replica")
			if err == nil || !strings.Contains(err.Error(), "a read replica needs PostgreSQL") {
				t.Fatalf("SQLite with a replica: %v", err)
			}
			return
		}
		s, err := openWithReplica(t, db, db.DatabaseURL)
		if err != nil {
			t.Fatal(err)
		}
		wal := &positions{}
		wal.primary.Store(100)
		wal.replayed.Store(50)
		s.SetReplicaPositions(wal)
		if s.ReportReadsOnReplica(ctx) {
			t.Fatal("a report reads on a replica not in use")
		}
		s.UseReplica(true)
		if s.ReportReadsOnReplica(ctx) || s.ReplicaFallbacks() != 1 {
			t.Fatalf("a report read on a replica that stayed behind (fallbacks %d)", s.ReplicaFallbacks())
		}
		wal.catchUp.Store(3) // while the report waits
		if !s.ReportReadsOnReplica(ctx) || s.ReplicaFallbacks() != 1 || wal.reads.Load() != 3 {
			t.Fatalf("a report did not wait for the replica to catch up (fallbacks %d)", s.ReplicaFallbacks())
		}
	})
}

// A replica that does not answer while it is still in use costs a list
// nothing: the page is read on the primary.
func TestReplicaDownListReadsOnThePrimary(t *testing.T) {
	t.Parallel()
	db := dbtest.Migrated(t, dbtest.Postgres)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	u, _ := url.Parse(db.DatabaseURL)
	u.Host = dead
	s, err := openWithReplica(t, db, u.String())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.UseReplica(true)
	if _, err := s.Payments().ListPage(context.Background(), "nobody", payment.ListFilter{Page: 1, Limit: 10}); err != nil {
		t.Fatalf("a list with the replica down: %v", err)
	}
	if s.ReplicaFallbacks() != 1 {
		t.Fatalf("fallbacks %d, want 1", s.ReplicaFallbacks())
	}
}

// A replica that dies in the middle of a list page's read (its read
// transaction begun, the page's query cut: the connections closed as
// when the server dies) costs the list nothing: the page is read on the
// primary, never an error.
func TestReplicaDyingMidListReadsOnThePrimary(t *testing.T) {
	t.Parallel()
	db := dbtest.Migrated(t, dbtest.Postgres)
	proxy := dbtest.NewProxy(t, db.DatabaseURL) // the replica: the same database, through a proxy the test cuts
	s, err := openWithReplica(t, db, proxy.URL)
	if err != nil {
		t.Fatal(err)
	}
	s.UseReplica(true)
	ctx := context.Background()
	proxy.CutOn("customer_tree") // the page's first query (its count), sent with its text: not yet prepared on the connection
	page, err := s.Payments().ListPage(ctx, "nobody", payment.ListFilter{Page: 1, Limit: 10})
	if proxy.Cuts() != 1 {
		t.Fatal("the proxy cut no query: the page was not read on the replica")
	}
	if err != nil || len(page.Items) != 0 {
		t.Fatalf("a list whose replica died mid-read: %+v %v; want the primary's (empty) page", page, err)
	}
	if s.ReplicaFallbacks() != 1 {
		t.Fatalf("fallbacks %d, want 1", s.ReplicaFallbacks())
	}
}

// The replica's sessions read with one backend and no JIT (a list's count
// over a million rows was a leader and two parallel workers, each with its
// JIT compilation), unless the replica's URL names the settings itself.
func TestReplicaSessionsReadOnOneBackend(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t, dbtest.Postgres)
	sep := "?"
	if strings.Contains(db.DatabaseURL, "?") {
		sep = "&"
	}
	for _, c := range []struct {
		url           string
		parallel, jit string
	}{
		{db.DatabaseURL, "0", "off"},
		{db.DatabaseURL + sep + "jit=on&max_parallel_workers_per_gather=2", "2", "on"},
	} {
		s, err := openWithReplica(t, db, c.url)
		if err != nil {
			t.Fatal(err)
		}
		var parallel, jit string
		if err := s.ReplicaPool().QueryRow(`SELECT current_setting('max_parallel_workers_per_gather'), current_setting('jit')`).Scan(&parallel, &jit); err != nil {
			t.Fatal(err)
		}
		if parallel != c.parallel || jit != c.jit {
			t.Errorf("replica %s: max_parallel_workers_per_gather %s, jit %s; want %s, %s", c.url, parallel, jit, c.parallel, c.jit)
		}
	}
}
