package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/job"
)

// jobs is the job queue: enqueue over a querier (a unit of work's
// transaction, or the write pool), claims and outcomes in transactions of
// their own.
type jobs struct {
	s  *Store
	tx *sql.Tx // nil outside a unit of work
}

var _ job.Queue = jobs{}

// Jobs is the job queue outside any unit of work.
func (s *Store) Jobs() job.Queue { return jobs{s: s} }

// Jobs enqueues jobs inside the transaction: they exist if and only if it
// commits.
func (t *Tx) Jobs() job.Enqueuer { return jobs{s: t.s, tx: t.tx} }

// OnJobsEnqueued registers fn, called (without blocking) after a
// transaction that enqueued jobs commits: the worker wakes at once.
func (s *Store) OnJobsEnqueued(fn func()) { s.jobsQueued.Store(&fn) }

// Enqueue writes js; a job whose UniqueKey an available job already holds
// is skipped.
func (q jobs) Enqueue(ctx context.Context, js ...job.Job) error {
	if q.tx == nil {
		return q.s.InTx(ctx, func(tx *Tx) error { return tx.Jobs().Enqueue(ctx, js...) })
	}
	now := time.Now() // created_at is bookkeeping, not a rule: wall time
	for _, j := range js {
		if j.Kind == "" || j.RunAt.IsZero() {
			return fmt.Errorf("job: kind and RunAt are required")
		}
		if j.ID == "" {
			id := ids.New()
			j.ID = id
		}
		if j.MaxAttempts <= 0 {
			j.MaxAttempts = job.DefaultMaxAttempts
		}
		if j.Args == nil {
			j.Args = []byte("{}")
		}
		unique := sql.NullString{String: j.UniqueKey, Valid: j.UniqueKey != ""}
		_, err := q.tx.ExecContext(ctx, `
			INSERT INTO jobs (id, kind, args, tenant_id, unique_key, state, run_at, max_attempts, created_at)
			VALUES ($1, $2, $3, $4, $5, 'available', $6, $7, $8)
			ON CONFLICT (unique_key) WHERE state = 'available' AND unique_key IS NOT NULL DO NOTHING`,
			j.ID, j.Kind, string(j.Args), j.TenantID, unique, micros(j.RunAt), j.MaxAttempts, micros(now))
		if err != nil {
			return translate(err, "job "+j.Kind)
		}
	}
	if fn := q.s.jobsQueued.Load(); fn != nil {
		q.s.onCommit(q.tx, "jobs enqueued", *fn)
	}
	return nil
}

// jobTenantOffset is the offset of the clock of a job's tenant (0 for a
// system job, whose tenant_id is empty).
var jobTenantOffset = `COALESCE((SELECT tc.offset_us FROM tenant_clocks tc WHERE tc.tenant_id = jobs.tenant_id), 0)`

// Claim takes up to limit due jobs of kinds (and up to limit whose
// holder's lease ran out) under a new lease. Due times are compared with
// now (the base time) plus the offset of the job's tenant's sandbox clock,
// leases with leaseNow (wall time). On PostgreSQL SKIP
// LOCKED lets several instances claim different jobs at once; on SQLite
// the one writer serialises claims. Both subqueries read a partial index.
func (q jobs) Claim(ctx context.Context, kinds []string, now, leaseNow, leaseUntil time.Time, limit int) (string, []job.Job, error) {
	lease := uuid.NewString()
	if len(kinds) == 0 {
		return lease, nil, nil
	}
	args := []any{micros(now), micros(leaseNow), micros(leaseUntil), lease, limit, micros(now) + maxOffsetMicros}
	in := make([]string, len(kinds))
	for i, k := range kinds {
		args = append(args, k)
		in[i] = fmt.Sprintf("$%d", len(args))
	}
	known := "kind IN (" + strings.Join(in, ", ") + ")"
	var out []job.Job
	err := q.s.inTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `
			UPDATE jobs SET state = 'running', attempt = attempt + 1, locked_until = $3, lease_id = $4
			WHERE (id IN (SELECT id FROM jobs WHERE state = 'available' AND run_at <= $6 AND `+known+`
					AND run_at <= CAST($1 AS BIGINT) + `+jobTenantOffset+`
					ORDER BY run_at, id LIMIT $5`+q.s.skipLocked()+`)
				OR id IN (SELECT id FROM jobs WHERE state = 'running' AND locked_until <= $2 AND `+known+`
					ORDER BY locked_until LIMIT $5`+q.s.skipLocked()+`))
			  AND ((state = 'available' AND run_at <= CAST($1 AS BIGINT) + `+jobTenantOffset+`) OR (state = 'running' AND locked_until <= $2))
			RETURNING id, kind, args, tenant_id, COALESCE(unique_key, ''), run_at, attempt, max_attempts, last_error, created_at`,
			args...)
		if err != nil {
			return translate(err, "claim jobs")
		}
		defer rows.Close()
		for rows.Next() {
			var j job.Job
			var args string
			var runAt, created int64
			if err := rows.Scan(&j.ID, &j.Kind, &args, &j.TenantID, &j.UniqueKey, &runAt, &j.Attempt, &j.MaxAttempts,
				&j.LastError, &created); err != nil {
				return translate(err, "claim jobs")
			}
			j.Args, j.State = []byte(args), job.Running
			j.RunAt, j.CreatedAt = fromMicros(runAt), fromMicros(created)
			out = append(out, j)
		}
		return translate(rows.Err(), "claim jobs")
	})
	return lease, out, err
}

// Extend moves the lease of those of ids that leaseID still holds to
// until and returns their ids (the claim's heartbeat): a job that ended, or
// whose lease ran out and another worker claimed, is not among them. One
// statement on the primary key.
func (q jobs) Extend(ctx context.Context, leaseID string, ids []string, until time.Time) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := []any{leaseID, micros(until)}
	in := make([]string, len(ids))
	for i, id := range ids {
		args = append(args, id)
		in[i] = fmt.Sprintf("$%d", len(args))
	}
	rows, err := q.s.write.QueryContext(ctx, `UPDATE jobs SET locked_until = $2
		WHERE id IN (`+strings.Join(in, ", ")+`) AND lease_id = $1 AND state = 'running' RETURNING id`, args...)
	if err != nil {
		return nil, translate(err, "extend job lease")
	}
	defer rows.Close()
	var held []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, translate(err, "extend job lease")
		}
		held = append(held, id)
	}
	return held, translate(rows.Err(), "extend job lease")
}

// PurgeFinished deletes up to limit jobs that ended (completed, failed or
// cancelled) before before; it returns how many.
func (q jobs) PurgeFinished(ctx context.Context, before time.Time, limit int) (int, error) {
	res, err := q.s.write.ExecContext(ctx, `
		DELETE FROM jobs WHERE id IN (SELECT id FROM jobs
			WHERE state IN ('completed', 'failed', 'cancelled') AND finished_at < $1 LIMIT $2)`, micros(before), limit)
	if err != nil {
		return 0, translate(err, "purge finished jobs")
	}
	n, err := res.RowsAffected()
	return int(n), translate(err, "purge finished jobs")
}

// Finish records a claimed job's outcome while leaseID still holds it; a
// lease that was taken over is CONFLICT. A retry that would make a second
// available job of a unique key (a newer one was enqueued meanwhile) is
// cancelled as superseded.
func (q jobs) Finish(ctx context.Context, id, leaseID string, state job.State, runAt time.Time, errText string, at time.Time) error {
	finished := nullMicros(at)
	next := sql.NullInt64{}
	if state == job.Available {
		finished, next = sql.NullInt64{}, nullMicros(runAt)
	}
	update := func(state job.State, errText string) (superseded bool, err error) {
		res, err := q.s.write.ExecContext(ctx, `
			UPDATE jobs SET state = $3, run_at = COALESCE($4, run_at), last_error = $5, finished_at = $6,
				locked_until = NULL, lease_id = NULL
			WHERE id = $1 AND lease_id = $2 AND state = 'running'`,
			id, leaseID, string(state), next, errText, finished)
		if isUniqueViolation(err) {
			return true, nil
		}
		if err := expectOne(res, err, "job "+id); errs.Is(err, errs.NotFound) {
			return false, errs.E(errs.Conflict, "The lease on job %s ran out; another worker holds it.", id)
		} else if err != nil {
			return false, err
		}
		return false, nil
	}
	superseded, err := update(state, errText)
	if superseded {
		finished, next = nullMicros(at), sql.NullInt64{}
		_, err = update(job.Cancelled, "superseded by a newer job of the same unique key; last error: "+errText)
	}
	return err
}

// PurgeFinishedJobs deletes every job that ended before before, in
// batches; it returns how many.
func (s *Store) PurgeFinishedJobs(ctx context.Context, before time.Time) (int, error) {
	total := 0
	for ctx.Err() == nil {
		n, err := jobs{s: s}.PurgeFinished(ctx, before, 1000)
		total += n
		if err != nil || n < 1000 {
			return total, err
		}
	}
	return total, ctx.Err()
}
