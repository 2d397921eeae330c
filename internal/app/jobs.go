package app

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bankrail/bankrail/internal/alias"
	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/job"
	"github.com/bankrail/bankrail/internal/metrics"
	"github.com/bankrail/bankrail/internal/refund"
	"github.com/bankrail/bankrail/internal/report"
	"github.com/bankrail/bankrail/internal/worker"
	"github.com/bankrail/bankrail/internal/xs2a"
)

// Kinds of the jobs this instance runs.
const (
	// kindPurgeIdempotencyKeys forgets expired Idempotency-Keys and jobs that
	// ended a week ago, then
	// enqueues its next run (a unique job: one waiting across instances).
	kindPurgeIdempotencyKeys = "idempotency.purge"
	purgeEvery               = time.Hour
	keepFinishedJobs         = 7 * 24 * time.Hour // how long ended jobs stay for inspection
)

// buildJobs registers the job kinds, each with its concurrency (a kind's
// slots are its own: a long report never holds a refund's settlement),
// makes the job worker (woken when this instance enqueues, its dead jobs
// counted on reg) and enqueues the first run of the periodic jobs.
func (a *App) buildJobs(ctx context.Context, keys *idempotency.Guard, cfg job.Config, reg prometheus.Registerer) error {
	kinds := job.NewRegistry()
	queue := a.store.Jobs()
	job.Register(kinds, kindPurgeIdempotencyKeys, func(ctx context.Context, _ struct{}) error {
		n, err := keys.PurgeExpired(ctx)
		if err != nil {
			return err
		}
		done, err := a.store.PurgeFinishedJobs(ctx, a.clock.Now().Add(-keepFinishedJobs))
		if err != nil {
			return err
		}
		if n > 0 || done > 0 {
			a.log.Info("purged expired idempotency keys and finished jobs", "keys", n, "jobs", done)
		}
		return a.enqueuePurge(ctx, queue, a.clock.Now().Add(purgeEvery))
	}, job.Concurrency(1))
	job.Register(kinds, report.KindGenerate, a.reports.Generate, job.Concurrency(max(a.cfg.ReportConcurrency, 1))) // CPU and a read transaction each
	job.Register(kinds, alias.KindIssue, a.aliases.Issue, job.Concurrency(2))
	job.Register(kinds, refund.KindSettle, a.refunds.Settle, job.Concurrency(8)) // short; a merchant waits for each
	if a.xs2a != nil {
		job.Register(kinds, xs2a.KindPoll, a.xs2a.Poll, job.Concurrency(4)) // a bank's answer: HTTP, bounded by its timeout
	}
	if cfg.Observer == nil {
		cfg.Observer = metrics.NewJobs(reg, a.store.DeadJobCounts, kinds.Kinds()...)
	}
	w := job.NewWorker(queue, kinds, a.clock, a.log.With("component", "jobs"), cfg)
	a.jobs = w
	a.store.OnJobsEnqueued(w.Wake)
	if a.virtual != nil {
		a.virtual.OnAdvance(w.Wake) // a tenant's advance may make its jobs due
	}
	a.workers = append(a.workers, w)
	return a.enqueuePurge(ctx, queue, a.clock.Now())
}

// enqueuePurge schedules the purge of expired keys at at, unless a run is
// already waiting.
func (a *App) enqueuePurge(ctx context.Context, q job.Enqueuer, at time.Time) error {
	j, err := job.New(kindPurgeIdempotencyKeys, nil, at)
	if err != nil {
		return err
	}
	j.UniqueKey = kindPurgeIdempotencyKeys
	if err := q.Enqueue(ctx, j); err != nil {
		return fmt.Errorf("schedule the purge of idempotency keys: %w", err)
	}
	return nil
}

// addTimed adds a worker that polls for what time made due: a tenant
// clock's advance wakes it at once (as it does the jobs and the
// notifications), and so does WakeWorkers.
func (a *App) addTimed(p *worker.Periodic) {
	a.timed = append(a.timed, p)
	if a.virtual != nil {
		a.virtual.OnAdvance(p.Wake)
	}
	a.workers = append(a.workers, p)
}
