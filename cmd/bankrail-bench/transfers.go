package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/xml"
	"flag"
	"fmt"
	"slices"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/seed"
	"github.com/bankrail/bankrail/internal/store"
	"github.com/bankrail/bankrail/internal/transfer"
	"log/slog"
)

// runTransfers is "bankrail-bench transfers [--count N] [--rounds R]
// [--database-url URL]": N queued transfers are written into a pain.001
// file by the export (the claim of every transfer, the file written with
// the SEPA transliteration and stored, in one unit of work), and, in the
// same run on the same rows, by a reference that does the least the same
// work needs: one UPDATE ... RETURNING of the rows, encoding/xml's
// Marshal of them, one INSERT of the document, in one transaction. Each
// round measures both (rows back to QUEUED in between); it prints the
// medians and the ratio, and the time against the target of a second.
func runTransfers(args []string) error {
	fs := flag.NewFlagSet("transfers", flag.ContinueOnError)
	count := fs.Int("count", 10000, "transfers in the file")
	rounds := fs.Int("rounds", 5, "rounds (the median is reported)")
	cpuProfile := fs.String("cpu-profile", "", "write a CPU profile of the exports to this file")
	dbURL := fs.String("database-url", "", "PostgreSQL URL (a fresh schema is made and dropped); empty: SQLite in a temporary directory")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx := context.Background()
	cfg, cleanup, err := benchConfig(ctx, *dbURL)
	if err != nil {
		return err
	}
	defer cleanup()
	cfg.Mode = config.Production
	demo := seed.Demo("")
	a, err := app.New(ctx, cfg, slog.New(slog.DiscardHandler), app.Options{Seed: &demo})
	if err != nil {
		return err
	}
	defer func() { _ = a.Close() }()
	if err := queueBench(ctx, a.Store(), *count); err != nil {
		return err
	}
	write, _ := a.Store().Pools()
	var exports, refs []time.Duration
	for range *rounds {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		start := time.Now()
		files, err := a.Transfers().ExportAll(ctx)
		if err != nil {
			return err
		}
		exports = append(exports, time.Since(start))
		stop()
		if len(files) != 1 || files[0].Count != *count {
			return fmt.Errorf("the export wrote %d files", len(files))
		}
		if err := requeue(ctx, write); err != nil {
			return err
		}
		start = time.Now()
		if err := referenceExport(ctx, write); err != nil {
			return err
		}
		refs = append(refs, time.Since(start))
		if err := requeue(ctx, write); err != nil {
			return err
		}
	}
	engine := "SQLite"
	if cfg.UsesPostgres() {
		engine = "PostgreSQL"
	}
	e, r := medianDuration(exports), medianDuration(refs)
	fmt.Printf("bankrail-bench transfers: %s, %d transfers into one pain.001, median of %d rounds\n", engine, *count, *rounds)
	fmt.Printf("  export (claim, pain.001.001.10, stored)   %8s\n", e.Round(time.Millisecond))
	fmt.Printf("  reference (UPDATE, encoding/xml, INSERT)  %8s\n", r.Round(time.Millisecond))
	fmt.Printf("  ratio export/reference %.2f; target: under 1s (%s)\n", float64(e)/float64(r), map[bool]string{true: "met", false: "MISSED"}[e < time.Second])
	return nil
}

// medianDuration is the median of ds.
func medianDuration(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// queueBench queues n transfers, 1,000 per unit of work.
func queueBench(ctx context.Context, s *store.Store, n int) error {
	now := time.Now().UTC()
	for lo := 0; lo < n; lo += 1000 {
		err := s.InTx(ctx, func(tx *store.Tx) error {
			for i := lo; i < min(lo+1000, n); i++ {
				id := fmt.Sprintf("7c000000-0000-4000-8000-%012d", i)
				err := transfer.Queue(ctx, tx, transfer.Transfer{ID: id, OwnerID: id, Kind: transfer.KindPayout, CustomerID: "bench",
					AccountID: "bench", DebtorIBAN: []string{"DE89370400440532013000", "DE02120300000000202051"}[i%2], DebtorName: "Händler GmbH",
					CreditorName: fmt.Sprintf("Bénéficiaire Nº %d", i), CreditorIBAN: "FR1420041010050500013M02606", Amount: int64(100 + i),
					Currency: "EUR", Remittance: fmt.Sprintf("Rückzahlung Rechnung %d", i), CreatedAt: now.Add(time.Duration(i) * time.Microsecond)})
				if err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// requeue puts every transfer back in the queue and drops the files.
func requeue(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, `UPDATE transfers SET state = 'QUEUED', file_id = NULL`); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, `DELETE FROM transfer_files`)
	return err
}

// refTx is one transfer of the reference's document.
type refTx struct {
	ID       string `xml:"PmtId>EndToEndId"`
	Amount   int64  `xml:"Amt>InstdAmt"`
	Name     string `xml:"Cdtr>Nm"`
	IBAN     string `xml:"CdtrAcct>Id>IBAN"`
	Ustrd    string `xml:"RmtInf>Ustrd"`
	Debtor   string `xml:"-"`
	Currency string `xml:"-"`
}

// referenceExport is the reference: the same rows claimed, marshalled by
// encoding/xml and stored, in one transaction.
func referenceExport(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	rows, err := tx.QueryContext(ctx, `UPDATE transfers SET state = 'FILED', file_id = 'ref' WHERE state = 'QUEUED'
		RETURNING id, amount, creditor_name, creditor_iban, remittance, debtor_iban, currency`)
	if err != nil {
		return err
	}
	var txs []refTx
	for rows.Next() {
		var t refTx
		if err := rows.Scan(&t.ID, &t.Amount, &t.Name, &t.IBAN, &t.Ustrd, &t.Debtor, &t.Currency); err != nil {
			_ = rows.Close()
			return err
		}
		txs = append(txs, t)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := xml.NewEncoder(&buf).Encode(struct {
		XMLName xml.Name `xml:"Document"`
		Txs     []refTx  `xml:"CdtTrfTxInf"`
	}{Txs: txs}); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO transfer_files (id, msg_id, message, direction, tx_count, amount, currency, body, created_at)
		VALUES ('ref', 'ref', 'ref', 'OUT', $1, 0, 'EUR', $2, 0)`, len(txs), buf.String()); err != nil {
		return err
	}
	return tx.Commit()
}
