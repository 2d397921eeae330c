package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// columnIndex maps each column name of cols to its position.
func columnIndex(cols []string) map[string]int {
	idx := make(map[string]int, len(cols))
	for i, c := range cols {
		idx[c] = i
	}
	return idx
}

// seededPayment is the i-th of n bulk-seeded payments: a copy of tmpl (a
// payment row as stored, its columns placed by idx) with its own id, short
// code, references and amount, created at a time spread over the 90 days
// before now, and no timed move pending.
func seededPayment(tmpl []any, idx map[string]int, i, n int, now time.Time) []any {
	const span = 90 * 24 * time.Hour
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

// multiRowInsert is one INSERT of rows into table's cols and its
// arguments: numbered parameters on PostgreSQL, positional ones on SQLite
// (modernc's driver looks named ones up one by one).
func multiRowInsert(table string, cols []string, rows [][]any, postgres bool) (string, []any) {
	var q strings.Builder
	q.WriteString("INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES ")
	args := make([]any, 0, len(rows)*len(cols))
	for r, row := range rows {
		if r > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(")
		for c := range cols {
			if c > 0 {
				q.WriteString(", ")
			}
			if postgres {
				fmt.Fprintf(&q, "$%d", len(args)+1)
			} else {
				q.WriteString("?")
			}
			args = append(args, row[c])
		}
		q.WriteString(")")
	}
	return q.String(), args
}
