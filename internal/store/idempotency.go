package store

import (
	"context"
	"database/sql"
	"errors"

	"bankrail/internal/errs"
	"bankrail/internal/payment"
)

// ClaimIdempotencyKey inserts the key as pending, or, when it is already
// stored, locks it and applies payment.Decide, taking it over when that says
// so. The unique (customer_id, idem_key) key makes two concurrent claims, on
// any number of instances, serialise in the database.
func (s *Store) ClaimIdempotencyKey(ctx context.Context, c payment.Claim) (payment.ClaimResult, error) {
	var res payment.ClaimResult
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if s.dialect == Postgres {
			// The claim may be lost in a crash without harm: the payment
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
			res.Decision = payment.DecisionClaimed
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return translate(err, "claim idempotency key")
		}
		rec, err := scanKeyRecord(tx.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM idempotency_keys
			WHERE customer_id = $1 AND idem_key = $2`+s.forUpdate(), c.CustomerID, c.Key))
		if err != nil {
			return translate(err, "idempotency key")
		}
		res = payment.ClaimResult{Decision: payment.Decide(rec, c), Record: rec}
		if res.Decision != payment.DecisionClaimed {
			return nil
		}
		_, err = tx.ExecContext(ctx, `
			UPDATE idempotency_keys SET request_hash = $3, token = $4, done = 0, response_status = NULL,
				response_body = NULL, resource_id = NULL, created_at = $5, expires_at = $6, locked_until = $7
			WHERE customer_id = $1 AND idem_key = $2`,
			c.CustomerID, c.Key, c.RequestHash, c.Token, micros(c.Now), micros(c.Now.Add(c.TTL)), micros(c.Now.Add(c.Lease)))
		return translate(err, "take over idempotency key")
	})
	return res, err
}

// ReleaseIdempotencyKey forgets a pending key still held with token.
func (s *Store) ReleaseIdempotencyKey(ctx context.Context, customerID, key, token string) error {
	_, err := s.write.ExecContext(ctx,
		`DELETE FROM idempotency_keys WHERE customer_id = $1 AND idem_key = $2 AND token = $3 AND done = 0`,
		customerID, key, token)
	return translate(err, "release idempotency key")
}

// completeIdempotencyKey stores the response under a key held with
// done.Token, inside the transaction of the change the request made.
func completeIdempotencyKey(ctx context.Context, tx *sql.Tx, done *payment.Completion) error {
	res, err := tx.ExecContext(ctx, `
		UPDATE idempotency_keys SET done = 1, response_status = $4, response_body = $5, resource_id = $6, locked_until = NULL
		WHERE customer_id = $1 AND idem_key = $2 AND token = $3 AND done = 0`,
		done.CustomerID, done.Key, done.Token, done.Response.Status, string(done.Response.Body), done.Response.ResourceID)
	if err != nil {
		return translate(err, "complete idempotency key")
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return errs.E(errs.IdempotencyConflict,
			"The Idempotency-Key was taken over by another request after this one took too long; retry to get its result.")
	}
	return nil
}

const keyColumns = `customer_id, idem_key, request_hash, token, done, COALESCE(response_status, 0),
	COALESCE(response_body, ''), COALESCE(resource_id, ''), created_at, expires_at, locked_until`

func scanKeyRecord(row interface{ Scan(...any) error }) (payment.KeyRecord, error) {
	var r payment.KeyRecord
	var done int
	var body string
	var created, expires int64
	var locked sql.NullInt64
	err := row.Scan(&r.CustomerID, &r.Key, &r.RequestHash, &r.Token, &done, &r.ResponseStatus, &body, &r.ResourceID,
		&created, &expires, &locked)
	r.Done, r.ResponseBody = done == 1, []byte(body)
	r.CreatedAt, r.ExpiresAt, r.LockedUntil = fromMicros(created), fromMicros(expires), fromNullMicros(locked)
	return r, err
}
