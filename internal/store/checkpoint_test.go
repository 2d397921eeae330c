package store_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/dbtest"
)

// SQLite's writer never checkpoints (the commit path stays short); the
// Store's checkpointer does, beside it: what is committed reaches the
// database file while the store is open, not only when it closes.
func TestSQLiteCommitsReachTheDatabaseFile(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t, dbtest.SQLite)
	s := open(t, db) // the migrations: hundreds of pages in the WAL
	ctx := context.Background()
	want, err := s.DatabaseBytes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want < 100_000 {
		t.Fatalf("the migrated database has %d bytes; the test needs more to mean something", want)
	}
	deadline := time.Now().Add(30 * time.Second) // a deadline for a loaded machine, not a timing
	for {
		st, err := os.Stat(db.SQLitePath)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the database file has %d bytes after 30 s, its connections see %d: nothing checkpointed the WAL", st.Size(), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
