package store_test

import (
	"context"
	"database/sql"
	"os"
	"sync"
	"testing"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/store"
)

// Under a steady load of overlapping reads and commits some reader nearly
// always holds an old snapshot, so a PASSIVE checkpoint never starts the
// WAL over and the writer appends to it for ever (a 10-minute soak grew it
// to 1.5 GB). The checkpointer truncates the WAL once it passes its bound
// (here 256 KiB), beside two busy readers.
func TestSQLiteWALStaysBoundedUnderSteadyLoad(t *testing.T) {
	const bound = 64 // frames: 256 KiB of 4 KiB pages
	store.SetWALRestartFrames(t, bound)
	db := dbtest.New(t, dbtest.SQLite)
	s := open(t, db)
	ctx := context.Background()
	if err := s.Exec(ctx, `CREATE TABLE wal_load (id INTEGER PRIMARY KEY, pad BLOB NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	_, read := s.Pools()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	readErr := make(chan error, 2)
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				tx, err := read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
				if err != nil {
					readErr <- err
					return
				}
				var n int // a short read, as the API's are
				err = tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM wal_load`).Scan(&n)
				_ = tx.Rollback()
				if err != nil {
					readErr <- err
					return
				}
			}
		})
	}
	// Commit until the WAL file has been seen to shrink three times (each
	// a restart: a WAL left to PASSIVE checkpoints only ever grows), at
	// most 12,000 commits (~140 MiB).
	var largest, last int64
	shrinks, commits := 0, 0
	for ; shrinks < 3 && commits < 12000; commits++ {
		if err := s.ExecInUnit(ctx, `INSERT INTO wal_load (pad) VALUES (randomblob(8000))`); err != nil {
			t.Fatal(err)
		}
		if commits%10 != 0 {
			continue
		}
		size := int64(0)
		if st, err := os.Stat(db.SQLitePath + "-wal"); err == nil {
			size = st.Size()
		} else if !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if size < last {
			shrinks++
		}
		last, largest = size, max(largest, size)
	}
	close(stop)
	wg.Wait()
	close(readErr)
	for err := range readErr {
		t.Fatalf("a reader failed: %v", err)
	}
	if shrinks < 3 {
		t.Fatalf("the WAL shrank %d times in %d commits beside two readers (largest %d bytes, bound %d frames): nothing starts it over", shrinks, commits, largest, bound)
	}
	t.Logf("the WAL started over %d times in %d commits; at most %d bytes", shrinks, commits, largest)
}
