package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/google/uuid"
)

// seedExpected makes n payments expected on the demo merchant's EUR
// Connect account, for the statements phase only: one is created through
// the payment service (expectedPayments), and its row in payments and its
// rows in events (the moves of its history) are copied n-1 times with new
// ids and unique references, in multi-row INSERTs (copyRows). Creating
// 50,000 through the service, one unit of work each, took minutes; the
// copies are the same payment as the service writes it, so the importer's
// matching (payment.Service.Credit) reads and moves them as it would
// the service's own. It returns the payments' ids.
func seedExpected(ctx context.Context, a *app.App, n int, postgres bool) ([]string, error) {
	first, err := expectedPayments(ctx, a.Payments(), 1)
	if err != nil {
		return nil, err
	}
	ids := make([]string, n)
	ids[0] = first[0]
	for i := 1; i < n; i++ {
		ids[i] = uuid.NewString()
	}
	write, _ := a.Store().Pools()
	err = copyRows(ctx, write, "payments", "id", ids[0], n-1, postgres, func(i int, set func(col string, v any)) {
		id := ids[i+1]
		set("id", id)
		set("short_code", "S"+strings.ReplaceAll(id, "-", ""))
		set("unique_reference", fmt.Sprintf("BS%09d", i+1))
		set("checkout_token", "bench-"+id)
	})
	if err == nil {
		err = a.Store().RecountPayments(ctx) // rows of its own SQL: the store counts only what it writes
	}
	if err != nil {
		return nil, err
	}
	err = copyRows(ctx, write, "events", "subject_id", ids[0], n-1, postgres, func(i int, set func(col string, v any)) {
		set("id", uuid.NewString())
		set("subject_id", ids[i+1])
	})
	return ids, err
}

// copyRows copies the rows of table whose column key is value n times, in
// INSERTs of up to 500 rows, 20 statements a transaction; fill changes
// copy i's columns (every copy of every template row).
func copyRows(ctx context.Context, db *sql.DB, table, key, value string, n int, postgres bool, fill func(i int, set func(col string, v any))) error {
	rows, err := db.QueryContext(ctx, `SELECT * FROM `+table+` WHERE `+key+` = $1`, value)
	if err != nil {
		return err
	}
	cols, err := rows.Columns()
	if err != nil {
		rows.Close()
		return err
	}
	var tmpls [][]any
	for rows.Next() {
		v, ptrs := make([]any, len(cols)), make([]any, len(cols))
		for i := range v {
			ptrs[i] = &v[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			rows.Close()
			return err
		}
		tmpls = append(tmpls, v)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(tmpls) == 0 {
		return errors.New("copy " + table + ": no template row")
	}
	idx := columnIndex(cols)
	var all [][]any
	for i := range n {
		for _, t := range tmpls {
			v := append([]any(nil), t...)
			fill(i, func(col string, x any) {
				if j, ok := idx[col]; ok {
					v[j] = x
				}
			})
			all = append(all, v)
		}
	}
	perStmt := max(1, min(500, 30000/len(cols)))
	const perTx = 20
	for len(all) > 0 {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		for s := 0; s < perTx && len(all) > 0; s++ {
			k := min(perStmt, len(all))
			q, args := multiRowInsert(table, cols, all[:k], postgres)
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				_ = tx.Rollback()
				return fmt.Errorf("copy %s: %w", table, err)
			}
			all = all[k:]
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}
