package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
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
	idx := map[string]int{}
	for i, c := range cols {
		idx[c] = i
	}
	span := 90 * 24 * time.Hour
	row := func(i int) []any {
		v := append([]any(nil), tmpl...)
		at := now.Add(-span + time.Duration(float64(span)*float64(i)/float64(n))).UnixMicro()
		id := uuid.NewString()
		v[idx["id"]], v[idx["short_code"]], v[idx["unique_reference"]] = id, "S"+strings.ReplaceAll(id, "-", ""), fmt.Sprintf("BR%09d", i)
		v[idx["payment_reference"]], v[idx["internal_reference"]] = fmt.Sprintf("Bench %d", i), fmt.Sprintf("order-%d", i)
		v[idx["amount"]], v[idx["created_at"]], v[idx["updated_at"]] = int64(100+i%100000), at, at
		if j, ok := idx["next_at"]; ok {
			v[j] = nil
		}
		if j, ok := idx["next_status"]; ok {
			v[j] = ""
		}
		return v
	}
	const perCopy = 100_000
	for done := 0; done < n; {
		k := min(perCopy, n-done)
		src := pgx.CopyFromFunc(func() ([]any, error) {
			if k == 0 {
				return nil, nil
			}
			k--
			done++
			return row(done - 1), nil
		})
		if _, err := pg.CopyFrom(ctx, pgx.Identifier{"payments"}, cols, src); err != nil {
			return fmt.Errorf("copy payments: %w", err)
		}
	}
	return nil
}
