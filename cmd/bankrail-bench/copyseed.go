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
// databaseURL (the instance's). The payment counts' statement triggers see
// COPY's rows as they see an INSERT's.
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
