package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

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
	wake := false
	for _, j := range js {
		wake = wake || !j.Later
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
	if fn := q.s.jobsQueued.Load(); fn != nil && wake {
		q.s.onCommit(q.tx, "jobs enqueued", *fn)
	}
	return nil
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
	in := inList(&args, ids)
	rows, err := q.s.write.QueryContext(ctx, `UPDATE jobs SET locked_until = $2
		WHERE id IN (`+in+`) AND lease_id = $1 AND state = 'running' RETURNING id`, args...)
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

// DeadJobs lists up to limit dead jobs, the latest first: what an operator
// looks at (bankrail jobs dead).
func (s *Store) DeadJobs(ctx context.Context, limit int) ([]job.Job, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+jobColumns+`, COALESCE(finished_at, 0) FROM jobs
		WHERE state = 'dead' ORDER BY finished_at DESC, id LIMIT $1`, limit)
	if err != nil {
		return nil, translate(err, "list dead jobs")
	}
	defer rows.Close()
	var out []job.Job
	for rows.Next() {
		var finished int64
		j, err := scanJob(rows, &finished)
		if err != nil {
			return nil, translate(err, "list dead jobs")
		}
		j.State, j.FinishedAt = job.Dead, fromMicros(finished)
		out = append(out, j)
	}
	return out, translate(rows.Err(), "list dead jobs")
}

// DeadJobCounts counts the dead jobs of each kind (the gauge
// bankrail_jobs_dead, the same on every instance).
func (s *Store) DeadJobCounts(ctx context.Context) (map[string]int, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT kind, COUNT(*) FROM jobs WHERE state = 'dead' GROUP BY kind`)
	if err != nil {
		return nil, translate(err, "count dead jobs")
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var kind string
		var n int
		if err := rows.Scan(&kind, &n); err != nil {
			return nil, translate(err, "count dead jobs")
		}
		out[kind] = n
	}
	return out, translate(rows.Err(), "count dead jobs")
}

// RetryDeadJob makes the dead job id available again, due at once (its
// run_at, in the past), with its lease expiries reset: an operator's
// "run it again" after a fix (bankrail jobs retry). Its attempts count on.
// A job that is not dead is NOT_FOUND; one whose unique key another
// waiting job holds is CONFLICT (that job does the work).
func (s *Store) RetryDeadJob(ctx context.Context, id string) error {
	res, err := s.write.ExecContext(ctx, `UPDATE jobs SET state = 'available', lease_expiries = 0, finished_at = NULL,
		locked_until = NULL, lease_id = NULL WHERE id = $1 AND state = 'dead'`, id)
	if isUniqueViolation(err) {
		return errs.E(errs.Conflict, "Job %s was not retried: another job of its unique key is waiting to run.", id)
	}
	return expectOne(res, err, "dead job "+id)
}
