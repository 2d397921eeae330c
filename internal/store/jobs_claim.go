package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/job"
)

// jobTenantOffset is the offset of the clock of a job's tenant (0 for a
// system job, whose tenant_id is empty).
var jobTenantOffset = `COALESCE((SELECT tc.offset_us FROM tenant_clocks tc WHERE tc.tenant_id = jobs.tenant_id), 0)`

// buryBatch is how many dead jobs one claim buries at most.
const buryBatch = 100

// jobColumns are what a claim returns of each job.
const jobColumns = `id, kind, args, tenant_id, COALESCE(unique_key, ''), run_at, attempt, max_attempts, lease_expiries, last_error, created_at`

// Claim buries the dead jobs of the request's kinds, then takes, per kind,
// up to its free slots: first jobs whose holder's lease ran out, then due
// jobs; all in one transaction. Due times are compared with Now (the base
// time) plus the offset of the job's tenant's sandbox clock, leases with
// LeaseNow (wall time). On PostgreSQL SKIP LOCKED lets several instances
// claim different jobs at once; on SQLite the one writer serialises
// claims. Every subquery reads a partial index (jobs_due, jobs_leased).
func (q jobs) Claim(ctx context.Context, req job.ClaimRequest) (job.Claimed, error) {
	out := job.Claimed{Lease: uuid.NewString()}
	kinds := make([]string, 0, len(req.Slots))
	for k := range req.Slots {
		kinds = append(kinds, k)
	}
	if len(kinds) == 0 {
		return out, nil
	}
	slices.Sort(kinds) // the same statement text for the same kinds
	err := q.s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if out.Dead, err = q.bury(ctx, tx, kinds, req); err != nil {
			return err
		}
		left := make(map[string]int, len(kinds))
		for _, k := range kinds {
			left[k] = req.Slots[k]
		}
		expired, err := q.claimExpired(ctx, tx, kinds, left, out.Lease, req)
		if err != nil {
			return err
		}
		for _, j := range expired {
			left[j.Kind]--
		}
		due, err := q.claimDue(ctx, tx, kinds, left, out.Lease, req)
		out.Jobs = append(expired, due...)
		return err
	})
	if err != nil { // rolled back: nothing claimed, nothing buried
		return job.Claimed{Lease: out.Lease}, err
	}
	for i := range out.Dead {
		out.Dead[i].State = job.Dead
	}
	for i := range out.Jobs {
		out.Jobs[i].State = job.Running
	}
	return out, err
}

// bury marks dead the running jobs of kinds whose lease ran out at
// LeaseNow for the MaxLeaseExpiries-th time.
func (q jobs) bury(ctx context.Context, tx *sql.Tx, kinds []string, req job.ClaimRequest) ([]job.Job, error) {
	args := []any{micros(req.LeaseNow), req.MaxLeaseExpiries, micros(req.Now), buryBatch}
	in := inList(&args, kinds)
	return scanJobs(tx.QueryContext(ctx, `
		WITH picked AS MATERIALIZED (SELECT id FROM jobs WHERE state = 'running' AND locked_until <= $1
			AND lease_expiries + 1 >= $2 AND kind IN (`+in+`) ORDER BY locked_until LIMIT $4`+q.s.skipLocked()+`)
		UPDATE jobs SET state = 'dead', lease_expiries = lease_expiries + 1, finished_at = $3,
			locked_until = NULL, lease_id = NULL,
			last_error = 'its lease ran out ' || CAST(lease_expiries + 1 AS TEXT) || ' times; last error: ' || last_error
		WHERE id IN (SELECT id FROM picked) AND state = 'running' AND locked_until <= $1
		RETURNING `+jobColumns, args...))
}

// claimExpired takes, per kind, up to left[kind] running jobs whose lease
// ran out (fewer times than the cap) under lease.
func (q jobs) claimExpired(ctx context.Context, tx *sql.Tx, kinds []string, left map[string]int, lease string, req job.ClaimRequest) ([]job.Job, error) {
	args := []any{micros(req.LeaseNow), micros(req.LeaseUntil), lease, req.MaxLeaseExpiries}
	with, picked := perKind(&args, kinds, left, `SELECT id FROM jobs WHERE state = 'running' AND locked_until <= $1
		AND lease_expiries + 1 < $4 AND kind = %s ORDER BY locked_until LIMIT %s`+q.s.skipLocked())
	if with == "" {
		return nil, nil
	}
	return scanJobs(tx.QueryContext(ctx, with+`
		UPDATE jobs SET attempt = attempt + 1, lease_expiries = lease_expiries + 1, locked_until = $2, lease_id = $3
		WHERE id IN (`+picked+`) AND state = 'running' AND locked_until <= $1 AND lease_expiries + 1 < $4
		RETURNING `+jobColumns, args...))
}

// claimDue takes, per kind, up to left[kind] available jobs due on their
// tenant's clock under lease.
func (q jobs) claimDue(ctx context.Context, tx *sql.Tx, kinds []string, left map[string]int, lease string, req job.ClaimRequest) ([]job.Job, error) {
	args := []any{micros(req.Now), micros(req.LeaseUntil), lease, micros(req.Now) + maxOffsetMicros}
	with, picked := perKind(&args, kinds, left, `SELECT id FROM jobs WHERE state = 'available' AND run_at <= $4 AND kind = %s
		AND run_at <= CAST($1 AS BIGINT) + `+jobTenantOffset+` ORDER BY run_at, id LIMIT %s`+q.s.skipLocked())
	if with == "" {
		return nil, nil
	}
	return scanJobs(tx.QueryContext(ctx, with+`
		UPDATE jobs SET state = 'running', attempt = attempt + 1, locked_until = $2, lease_id = $3
		WHERE id IN (`+picked+`) AND state = 'available' AND run_at <= CAST($1 AS BIGINT) + `+jobTenantOffset+`
		RETURNING `+jobColumns, args...))
}

// perKind picks the ids to claim, pick (a format of the kind's and the
// limit's placeholders) for each kind with slots left: a WITH clause of one
// materialized CTE per kind, and the query of their union; "" when no kind
// has slots. Materialized, each pick runs once: as a lone subquery in
// "id IN (...)" PostgreSQL plans a semi-join that scans it again for the
// rows the UPDATE visits, skipping the rows the statement already updated
// and picking more (a limit of 1 claimed 3 jobs).
func perKind(args *[]any, kinds []string, left map[string]int, pick string) (with, picked string) {
	var ctes, unions []string
	for _, k := range kinds {
		if left[k] <= 0 {
			continue
		}
		*args = append(*args, k, left[k])
		n := len(*args)
		name := fmt.Sprintf("pick%d", len(ctes))
		ctes = append(ctes, name+" AS MATERIALIZED ("+fmt.Sprintf(pick, fmt.Sprintf("$%d", n-1), fmt.Sprintf("$%d", n))+")")
		unions = append(unions, "SELECT id FROM "+name)
	}
	if len(ctes) == 0 {
		return "", ""
	}
	return "WITH " + strings.Join(ctes, ", "), strings.Join(unions, " UNION ALL ")
}

// inList appends values to args and returns their placeholders, comma
// separated.
func inList(args *[]any, values []string) string {
	marks := make([]string, len(values))
	for i, v := range values {
		*args = append(*args, v)
		marks[i] = fmt.Sprintf("$%d", len(*args))
	}
	return strings.Join(marks, ", ")
}

// scanJobs reads the jobColumns of rows.
func scanJobs(rows *sql.Rows, err error) ([]job.Job, error) {
	if err != nil {
		return nil, translate(err, "claim jobs")
	}
	defer rows.Close()
	var out []job.Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, translate(err, "claim jobs")
		}
		out = append(out, j)
	}
	return out, translate(rows.Err(), "claim jobs")
}

// scanJob reads the jobColumns of one row, then into more.
func scanJob(rows *sql.Rows, more ...any) (job.Job, error) {
	var j job.Job
	var args string
	var runAt, created int64
	err := rows.Scan(append([]any{&j.ID, &j.Kind, &args, &j.TenantID, &j.UniqueKey, &runAt, &j.Attempt, &j.MaxAttempts,
		&j.LeaseExpiries, &j.LastError, &created}, more...)...)
	j.Args = []byte(args)
	j.RunAt, j.CreatedAt = fromMicros(runAt), fromMicros(created)
	return j, err
}
