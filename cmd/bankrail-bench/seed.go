package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/seed"
)

// runSeed inserts payments into an existing database.
func runSeed(args []string) error {
	o, err := parseReportFlags("seed", args)
	if err != nil {
		return err
	}
	ctx := context.Background()
	cfg := config.Default()
	cfg.Addr, cfg.DatabaseURL, cfg.LogLevel = "127.0.0.1:0", o.databaseURL, "warn"
	if o.dataDir != "" {
		cfg.DataDir = o.dataDir
	}
	a, err := startBench(ctx, cfg)
	if err != nil {
		return err
	}
	defer shutdown(a)
	start := time.Now()
	if err := seedPayments(ctx, a, o.payments, time.Now(), cfg.UsesPostgres()); err != nil {
		return err
	}
	fmt.Printf("inserted %d payments in %s\n", o.payments, time.Since(start).Round(time.Millisecond))
	return nil
}

// startBench starts bankrail with the demo merchant on a loopback port.
func startBench(ctx context.Context, cfg config.Config) (*app.App, error) {
	log := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	demo := seed.Demo("")
	a, err := app.New(ctx, cfg, log, app.Options{Seed: &demo})
	if err != nil {
		return nil, fmt.Errorf("start bankrail: %w", err)
	}
	if err := a.Start(ctx); err != nil {
		return nil, err
	}
	return a, nil
}

func shutdown(a *app.App) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = a.Shutdown(ctx)
}

// seedPayments copies one payment made through the API n times (new ids,
// short codes and references; creation times spread over the 90 days
// before now), in multi-row INSERTs of 500 rows, 20 statements per
// transaction.
func seedPayments(ctx context.Context, a *app.App, n int, now time.Time, postgres bool) error {
	b := newBench(options{clients: 1}, "http://"+a.Addr(), "")
	if err := b.login(); err != nil {
		return err
	}
	if err := b.postPayment(0, 0); err != nil {
		return fmt.Errorf("template payment: %w", err)
	}
	write, _ := a.Store().Pools()
	rows, err := write.QueryContext(ctx, `SELECT * FROM payments WHERE id = $1`, b.payIDs[0])
	if err != nil {
		return err
	}
	cols, _ := rows.Columns()
	tmpl := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range tmpl {
		ptrs[i] = &tmpl[i]
	}
	if !rows.Next() {
		rows.Close()
		return errors.New("template payment not found")
	}
	err = rows.Scan(ptrs...)
	rows.Close()
	if err != nil {
		return err
	}
	idx := columnIndex(cols)
	const perStmt, perTx = 500, 20
	for done := 0; done < n; {
		err := func() error {
			tx, err := write.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			defer func() { _ = tx.Rollback() }()
			for s := 0; s < perTx && done < n; s++ {
				k := min(perStmt, n-done)
				batch := make([][]any, k)
				for r := range batch {
					batch[r] = seededPayment(tmpl, idx, done+r, n, now)
				}
				q, args := multiRowInsert("payments", cols, batch, postgres)
				if _, err := tx.ExecContext(ctx, q, args...); err != nil {
					return fmt.Errorf("insert payments: %w", err)
				}
				done += k
			}
			return tx.Commit()
		}()
		if err != nil {
			return err
		}
	}
	return a.Store().RecountPayments(ctx) // rows of its own SQL: the store counts only what it writes
}

// analyze refreshes the planner's statistics after the bulk insert.
func analyze(ctx context.Context, a *app.App, postgres bool) error {
	write, _ := a.Store().Pools()
	q := "ANALYZE"
	if postgres {
		q = "ANALYZE payments"
	}
	_, err := write.ExecContext(ctx, q)
	return err
}

// samplePaymentIDs returns up to n payment ids.
func samplePaymentIDs(ctx context.Context, a *app.App, n int) ([]string, error) {
	_, read := a.Store().Pools()
	rows, err := read.QueryContext(ctx, `SELECT id FROM payments LIMIT $1`, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
