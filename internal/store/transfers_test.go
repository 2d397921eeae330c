package store_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/store"
	"github.com/bankrail/bankrail/internal/transfer"
)

// queueTransfers queues n transfers of customer, 1..n cents each.
func queueTransfers(t *testing.T, s *store.Store, customer string, n int, at time.Time) map[string]int64 {
	t.Helper()
	want := make(map[string]int64, n)
	err := s.InTx(context.Background(), func(tx *store.Tx) error {
		for i := range n {
			id := fmt.Sprintf("7a000000-0000-4000-8000-%012d", i+1)
			want[id] = int64(i + 1)
			err := transfer.Queue(context.Background(), tx, transfer.Transfer{ID: id, OwnerID: id, Kind: transfer.KindPayout,
				CustomerID: customer, AccountID: "acct", DebtorIBAN: "DE89370400440532013000", CreditorName: "Beneficiary",
				CreditorIBAN: "FR1420041010050500013M02606", Amount: int64(i + 1), Currency: "EUR", Remittance: "ref",
				CreatedAt: at.Add(time.Duration(i) * time.Microsecond)})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return want
}

// Several exporters at once (instances sharing the database) put every
// queued transfer into exactly one file, once: the claim and the file
// commit together, and a claim skips the rows another holds.
func TestTransferExportIsExactlyOnce(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
		want := queueTransfers(t, s, "c1", 120, at)
		svc := func() *transfer.Service {
			return transfer.NewService(s.Transfers(), store.Transactor[transfer.Repos](s), clock.NewFake(at),
				transfer.Config{MaxPerFile: 7}, slog.New(slog.DiscardHandler))
		}
		var wg sync.WaitGroup
		files := make(chan transfer.File, 200)
		errc := make(chan error, 4)
		for range 4 {
			exporter := svc() // one per instance
			wg.Go(func() {
				for {
					f, err := exporter.Export(ctx, "")
					if errors.Is(err, transfer.ErrNoFile) {
						return
					} else if err != nil {
						errc <- err
						return
					}
					files <- f
				}
			})
		}
		wg.Wait()
		close(files)
		close(errc)
		for err := range errc {
			t.Fatal(err)
		}
		seen := map[string]string{}
		for f := range files {
			in, err := s.Transfers().InFile(ctx, f.ID)
			if err != nil {
				t.Fatal(err)
			}
			var sum int64
			for _, tr := range in {
				if other, dup := seen[tr.ID]; dup {
					t.Fatalf("transfer %s in file %s and in file %s", tr.ID, other, f.ID)
				}
				seen[tr.ID] = f.ID
				sum += tr.Amount
				if tr.State != transfer.Filed || tr.FileID != f.ID {
					t.Fatalf("transfer %s: %s in %q", tr.ID, tr.State, tr.FileID)
				}
			}
			if len(in) != f.Count || sum != f.Sum || f.Count > 7 {
				t.Fatalf("file %s says %d transfers of %d, holds %d of %d", f.MsgID, f.Count, f.Sum, len(in), sum)
			}
		}
		if len(seen) != len(want) {
			t.Fatalf("%d of %d transfers were filed", len(seen), len(want))
		}
		if _, err := svc().Export(ctx, ""); !errors.Is(err, transfer.ErrNoFile) {
			t.Fatalf("an export after all were filed: %v", err)
		}
	})
}

// Queuing a transfer twice (a job that ran again) leaves one transfer;
// the files list and read by direction and visibility.
func TestTransferQueueIsIdempotentAndFilesList(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
		queueTransfers(t, s, "c1", 3, at)
		queueTransfers(t, s, "c1", 3, at)
		svc := transfer.NewService(s.Transfers(), store.Transactor[transfer.Repos](s), clock.NewFake(at), transfer.Config{}, slog.New(slog.DiscardHandler))
		f, err := svc.Export(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if f.Count != 3 || f.Sum != 6 {
			t.Fatalf("file %+v", f)
		}
		page, err := s.Transfers().Files(ctx, "", false, transfer.FileFilter{Direction: transfer.Out, Page: 1, Limit: 10})
		if err != nil || page.Total != 1 || len(page.Items) != 1 || page.Items[0].ID != f.ID || len(page.Items[0].Body) != 0 {
			t.Fatalf("files %+v %v", page, err)
		}
		if sb, err := s.Transfers().Files(ctx, "c1", true, transfer.FileFilter{Page: 1, Limit: 10}); err != nil || sb.Total != 0 {
			t.Fatalf("a production file among the sandbox's: %+v %v", sb, err)
		}
		got, err := s.Transfers().File(ctx, "", f.ID)
		if err != nil || string(got.Body) != string(f.Body) {
			t.Fatalf("read back: %v", err)
		}
	})
}
