package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/bankrail/bankrail/internal/idempotency"
)

// keys claims and releases idempotency keys, each in its own transaction.
type keys struct{ s *Store }

var _ idempotency.Keys = keys{}

// Claim inserts the key as pending, or, when it is already stored, locks it
// and applies idempotency.Decide, taking it over when that says so. The
// unique (customer_id, idem_key) key makes two concurrent claims, on any
// number of instances, serialise in the database. A claim that lost its
// connection runs again (retry): one that never reached the server, or
// was rolled back with it, is simply made; one whose commit was made
// before its answer was lost finds the key under its own token, which
// idempotency.Decide gives back to it.
func (k keys) Claim(ctx context.Context, c idempotency.Claim) (idempotency.ClaimResult, error) {
	var res idempotency.ClaimResult
	err := k.s.retry(ctx, "idempotency claim", func() error {
		res = idempotency.ClaimResult{}
		return k.claim(ctx, c, &res)
	}, lostAnyway)
	return res, err
}

// claim is one attempt of Claim, in one transaction.
func (k keys) claim(ctx context.Context, c idempotency.Claim, res *idempotency.ClaimResult) error {
	return k.s.inTx(ctx, func(tx *sql.Tx) error {
		if k.s.dialect == Postgres {
			// The claim may be lost in a crash without harm: the use case's
			// transaction that follows commits durably, and PostgreSQL's WAL
			// is ordered, so it never survives without its claim.
			if _, err := tx.ExecContext(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
				return translate(err, "claim idempotency key")
			}
		}
		var one int
		err := tx.QueryRowContext(ctx, `
			INSERT INTO idempotency_keys (customer_id, idem_key, request_hash, token, done, created_at, expires_at, locked_until)
			VALUES ($1, $2, $3, $4, 0, $5, $6, $7)
			ON CONFLICT (customer_id, idem_key) DO NOTHING
			RETURNING 1`,
			c.CustomerID, c.Key, c.RequestHash, c.Token, micros(c.Now), micros(c.Now.Add(c.TTL)), micros(c.Now.Add(c.Lease))).Scan(&one)
		if err == nil {
			res.Decision = idempotency.DecisionClaimed
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return translate(err, "claim idempotency key")
		}
		rec, err := scanKeyRecord(tx.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM idempotency_keys
			WHERE customer_id = $1 AND idem_key = $2`+k.s.forUpdate(), c.CustomerID, c.Key))
		if err != nil {
			return translate(err, "idempotency key")
		}
		*res = idempotency.ClaimResult{Decision: idempotency.Decide(rec, c), Record: rec}
		if res.Decision != idempotency.DecisionClaimed {
			return nil
		}
		_, err = tx.ExecContext(ctx, `
			UPDATE idempotency_keys SET request_hash = $3, token = $4, done = 0, response_body = NULL,
				resource_id = NULL, created_at = $5, expires_at = $6, locked_until = $7
			WHERE customer_id = $1 AND idem_key = $2`,
			c.CustomerID, c.Key, c.RequestHash, c.Token, micros(c.Now), micros(c.Now.Add(c.TTL)), micros(c.Now.Add(c.Lease)))
		return translate(err, "take over idempotency key")
	})
}

// Release forgets a pending key still held with t.Token; a release that
// lost its connection runs again (deleting what a token holds twice is
// deleting it once).
func (k keys) Release(ctx context.Context, t idempotency.Ticket) error {
	return k.s.retry(ctx, "idempotency release", func() error {
		_, err := k.s.write.ExecContext(ctx,
			`DELETE FROM idempotency_keys WHERE customer_id = $1 AND idem_key = $2 AND token = $3 AND done = 0`,
			t.CustomerID, t.Key, t.Token)
		return translate(err, "release idempotency key")
	}, lostAnyway)
}

// keyCompleter stores results under keys inside a unit of work.
type keyCompleter struct {
	s  *Store
	tx *sql.Tx
}

// Complete stores r under a key held with t.Token, inside the transaction
// of the change the request made. A Fresh ticket's key is inserted, done,
// here: its claim and its completion are this one statement, whose unique
// violation (the key exists; on PostgreSQL a concurrent insert of the same
// key waits for the other transaction and then sees it) is ErrKeyStored.
// Nothing reads its result, so on PostgreSQL it is queued (later) and its
// violation, if any, fails the unit when the queue is sent.
func (k keyCompleter) Complete(ctx context.Context, t idempotency.Ticket, r idempotency.Result) error {
	if c := t.Fresh; c != nil {
		_, err := k.s.txExec(laterFailing(ctx, keyStored), k.tx, insertDoneKey, c.CustomerID, c.Key, c.RequestHash, c.Token,
			micros(c.Now), micros(c.Now.Add(c.TTL)), string(r.Body), r.ResourceID)
		return keyStored(err)
	}
	res, err := k.tx.ExecContext(ctx, `
		UPDATE idempotency_keys SET done = 1, response_body = $4, resource_id = $5, locked_until = NULL
		WHERE customer_id = $1 AND idem_key = $2 AND token = $3 AND done = 0`,
		t.CustomerID, t.Key, t.Token, string(r.Body), r.ResourceID)
	if err != nil {
		return translate(err, "complete idempotency key")
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return idempotency.ErrTakenOver()
	}
	return nil
}

// insertDoneKey stores a key with its result at once (a Fresh ticket).
const insertDoneKey = `
	INSERT INTO idempotency_keys (customer_id, idem_key, request_hash, token, done, created_at, expires_at, locked_until,
		response_body, resource_id)
	VALUES ($1, $2, $3, $4, 1, $5, $6, NULL, $7, $8)`

// keyStored is the error of insertDoneKey's err: ErrKeyStored for a unique
// violation (the key was there: nothing inserted).
func keyStored(err error) error {
	if isUniqueViolation(err) {
		return idempotency.ErrKeyStored
	}
	return translate(err, "store idempotency key")
}

const keyColumns = `customer_id, idem_key, request_hash, token, done,
	COALESCE(response_body, ''), COALESCE(resource_id, ''), created_at, expires_at, locked_until`

func scanKeyRecord(row interface{ Scan(...any) error }) (idempotency.Record, error) {
	var r idempotency.Record
	var done int
	var body string
	var created, expires int64
	var locked sql.NullInt64
	err := row.Scan(&r.CustomerID, &r.Key, &r.RequestHash, &r.Token, &done, &body, &r.Result.ResourceID,
		&created, &expires, &locked)
	r.Done, r.Result.Body = done == 1, []byte(body)
	r.CreatedAt, r.ExpiresAt, r.LockedUntil = fromMicros(created), fromMicros(expires), fromNullMicros(locked)
	return r, err
}

// Purge deletes up to limit keys that expired before now and are not held
// by a request in flight; it returns how many it deleted.
func (k keys) Purge(ctx context.Context, now time.Time, limit int) (int, error) {
	res, err := k.s.write.ExecContext(ctx, `
		DELETE FROM idempotency_keys WHERE (customer_id, idem_key) IN (
			SELECT customer_id, idem_key FROM idempotency_keys
			WHERE expires_at <= $1 AND (done = 1 OR locked_until IS NULL OR locked_until <= $1) LIMIT $2)`,
		micros(now), limit)
	if err != nil {
		return 0, translate(err, "purge idempotency keys")
	}
	n, err := res.RowsAffected()
	return int(n), translate(err, "purge idempotency keys")
}

// Extend moves the lease of a pending key still held with t.Token to until
// (its holder's heartbeat): one statement on the primary key, outside the
// holder's unit of work.
func (k keys) Extend(ctx context.Context, t idempotency.Ticket, until time.Time) (bool, error) {
	res, err := k.s.write.ExecContext(ctx, `UPDATE idempotency_keys SET locked_until = $4
		WHERE customer_id = $1 AND idem_key = $2 AND token = $3 AND done = 0`, t.CustomerID, t.Key, t.Token, micros(until))
	if err != nil {
		return false, translate(err, "extend idempotency key lease")
	}
	n, err := res.RowsAffected()
	return n == 1, translate(err, "extend idempotency key lease")
}
