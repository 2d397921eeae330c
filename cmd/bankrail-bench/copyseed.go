package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bankrail/bankrail/internal/app"
)

// copyPayments is seedPayments' bulk path on PostgreSQL: one payment made
// through the API copied n times (new ids, short codes and references;
// creation times spread over the 90 days before now) by COPY, in one
// statement per 100,000 rows, on a pgx connection of its own to
// databaseURL (the instance's), then counted (Store.RecountPayments: the
// store counts only the payments it writes itself). The table's secondary indexes (not
// those of its constraints) are dropped before and built again after
// (withoutIndexes): one sort each instead of a million random inserts; the
// bench's schema is its own, nothing else uses it meanwhile.
func copyPayments(ctx context.Context, a *app.App, databaseURL string, n int, now time.Time) error {
	b := newBench(options{clients: 1}, "http://"+a.Addr(), "")
	if err := b.login(); err != nil {
		return err
	}
	if err := b.postPayment(0, 0); err != nil {
		return fmt.Errorf("template payment: %w", err)
	}
	pg, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return fmt.Errorf("bulk seed: %w", err)
	}
	defer func() { _ = pg.Close(ctx) }()
	rows, err := pg.Query(ctx, `SELECT * FROM payments WHERE id = $1`, b.payIDs[0])
	if err != nil {
		return err
	}
	var cols []string
	for _, f := range rows.FieldDescriptions() {
		cols = append(cols, f.Name)
	}
	if !rows.Next() {
		rows.Close()
		return errors.New("template payment not found")
	}
	tmpl, err := rows.Values()
	rows.Close()
	if err != nil {
		return err
	}
	idx := columnIndex(cols)
	if err := withoutIndexes(ctx, pg, "payments", func() error { return copyPaymentRows(ctx, pg, cols, tmpl, idx, n, now) }); err != nil {
		return err
	}
	return a.Store().RecountPayments(ctx) // rows of its own COPY: the store counts only what it writes
}

// copyPaymentRows copies n payments made from tmpl, 100,000 a statement.
func copyPaymentRows(ctx context.Context, pg *pgx.Conn, cols []string, tmpl []any, idx map[string]int, n int, now time.Time) error {
	const perCopy = 100_000
	for done := 0; done < n; {
		k := min(perCopy, n-done)
		src := pgx.CopyFromFunc(func() ([]any, error) {
			if k == 0 {
				return nil, nil
			}
			k--
			done++
			return seededPayment(tmpl, idx, done-1, n, now), nil
		})
		if _, err := pg.CopyFrom(ctx, pgx.Identifier{"payments"}, cols, src); err != nil {
			return fmt.Errorf("copy payments: %w", err)
		}
	}
	return nil
}

// withoutIndexes runs fn with table's secondary indexes (in the
// connection's schema, not those behind a constraint) dropped, and builds
// them again after, whatever fn returned.
func withoutIndexes(ctx context.Context, pg *pgx.Conn, table string, fn func() error) error {
	rows, err := pg.Query(ctx, `SELECT i.indexname, i.indexdef FROM pg_indexes i
		WHERE i.schemaname = current_schema() AND i.tablename = $1
		AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname AND c.connamespace = current_schema()::regnamespace)`, table)
	if err != nil {
		return fmt.Errorf("indexes of %s: %w", table, err)
	}
	var names, defs []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			rows.Close()
			return fmt.Errorf("indexes of %s: %w", table, err)
		}
		names, defs = append(names, name), append(defs, def)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("indexes of %s: %w", table, err)
	}
	for _, name := range names {
		if _, err := pg.Exec(ctx, `DROP INDEX `+pgx.Identifier{name}.Sanitize()); err != nil {
			return fmt.Errorf("drop index %s: %w", name, err)
		}
	}
	ferr := fn()
	if _, err := pg.Exec(ctx, `SET maintenance_work_mem = '256MB'`); err != nil {
		return err
	}
	for _, def := range defs {
		if _, err := pg.Exec(ctx, def); err != nil {
			return errors.Join(ferr, fmt.Errorf("build index again: %s: %w", def, err))
		}
	}
	return ferr
}
