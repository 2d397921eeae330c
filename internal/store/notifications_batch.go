package store

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/notify"
)

// enqueueRows is how many notifications one INSERT of enqueueMany takes.
const enqueueRows = 100

// enqueueColumns are the columns of the notifications enqueueMany
// writes.
var enqueueColumns = []string{"id", "customer_id", "application_id", "payment_id", "ordering_key", "seq", "type", "url", "body",
	"status", "next_attempt_at", "created_at"}

// insertNotifications is enqueueMany's INSERT of n notifications on d.
func insertNotifications(d Dialect, n int) string {
	return `INSERT INTO notifications (` + strings.Join(enqueueColumns, ", ") + `) VALUES ` + rowsOf(d, n, len(enqueueColumns))
}

// enqueueMany is enqueue for many messages (a statement import's batch):
// the applications of their clients read in one query, the last seq of
// their ordering keys in one, the rows in one COPY on PostgreSQL, else in
// INSERTs of enqueueRows (bulkInsert), each
// message numbered after the ones before it of its key (as enqueue's
// one-row subquery numbers it).
func (s *Store) enqueueMany(ctx context.Context, tx *sql.Tx, now time.Time, msgs []notify.Message) ([]string, error) {
	apps := map[string]string{} // client id → application id
	var clients, keys []string
	for _, m := range msgs {
		if err := m.Validate(); err != nil {
			return nil, err
		}
		if _, ok := apps[m.ClientID]; m.ApplicationID == "" && !ok {
			apps[m.ClientID] = ""
			clients = append(clients, m.ClientID)
		}
		if m.PaymentID != "" {
			keys = append(keys, m.PaymentID)
		}
	}
	if err := s.pairs(ctx, tx, `SELECT client_id, id FROM applications WHERE client_id IN `, clients, func(k, v string) { apps[k] = v }); err != nil {
		return nil, translate(err, "applications of notifications")
	}
	seqs := map[string]int64{}
	if err := s.lastSeqs(ctx, tx, keys, func(k, v string) { seqs[k] = atoi64(v) }); err != nil {
		return nil, translate(err, "notification order")
	}
	made := make([]string, 0, len(msgs))
	rows := make([][]any, 0, len(msgs))
	for _, m := range msgs {
		appID := m.ApplicationID
		if appID == "" {
			if appID = apps[m.ClientID]; appID == "" {
				return nil, translate(sql.ErrNoRows, "application "+m.ClientID+" of a notification")
			}
		}
		id := ids.New()
		key := m.PaymentID
		if key == "" {
			key = id
		}
		seqs[key]++
		rows = append(rows, []any{id, m.CustomerID, appID, m.PaymentID, key, seqs[key], m.Type, m.URL, string(m.Body), "PENDING", micros(now), micros(now)})
		made = append(made, id)
	}
	if err := s.bulkInsert(ctx, tx, "notifications", enqueueColumns, rows, enqueueRows, insertNotifications, "notifications"); err != nil {
		return nil, err
	}
	s.wakeAfterCommit(tx)
	return made, nil
}

// lastSeqsPostgres is lastSeqs' query on PostgreSQL: for each ordering key
// of the array $1 (each once), the last seq of the unique index on
// (ordering_key, seq), one look-up each in a LATERAL subquery the planner
// cannot turn into a join. The IN list with GROUP BY was planned, with the
// statistics of a table that grows during a statement import, as a scan
// of every notification (docs/performance.md, "The statement import on
// PostgreSQL").
const lastSeqsPostgres = `SELECT w.k, CAST(n.seq AS TEXT) FROM (SELECT DISTINCT k FROM unnest(CAST($1 AS TEXT[])) AS u(k)) AS w
	CROSS JOIN LATERAL (SELECT seq FROM notifications WHERE ordering_key = w.k ORDER BY seq DESC LIMIT 1) n`

// lastSeqs gives fn the last seq of each ordering key of keys that has
// notifications.
func (s *Store) lastSeqs(ctx context.Context, tx *sql.Tx, keys []string, fn func(k, v string)) error {
	if s.dialect != Postgres {
		return s.pairs(ctx, tx, `SELECT ordering_key, CAST(MAX(seq) AS TEXT) FROM notifications WHERE ordering_key IN `, keys,
			fn, " GROUP BY ordering_key")
	}
	if len(keys) == 0 {
		return nil
	}
	rows, err := tx.QueryContext(ctx, lastSeqsPostgres, keys)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		fn(k, v)
	}
	return rows.Err()
}

// pairs runs query (which ends in "IN ") over in, in parts of batchRows,
// with tail after the list, and gives each row's two columns to fn.
func (s *Store) pairs(ctx context.Context, tx *sql.Tx, query string, in []string, fn func(k, v string), tail ...string) error {
	for lo := 0; lo < len(in); lo += batchRows {
		b := s.binder()
		q := query + "(" + b.list(in[lo:min(lo+batchRows, len(in))]) + ")"
		for _, t := range tail {
			q += t
		}
		rows, err := tx.QueryContext(ctx, q, b.args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var k, v string
			if err := rows.Scan(&k, &v); err != nil {
				rows.Close()
				return err
			}
			fn(k, v)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// atoi64 reads a number the database wrote (0 for none).
func atoi64(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
