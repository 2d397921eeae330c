package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/app"
)

// jobsDeadAbout is the help of bankrail jobs dead.
const jobsDeadAbout = `Lists the dead jobs, the latest first: jobs whose lease ran out three times in a row (their
handler crashed or hung the instance that ran it), which no worker runs again. For each: id, kind,
tenant, attempts, lease expiries, when it died and its last error. Changes nothing.
bankrail jobs retry --id ID runs one again after a fix.`

// jobsRetryAbout is the help of bankrail jobs retry.
const jobsRetryAbout = `Makes a dead job available again, due at once, with its lease expiries back to zero: the next
worker of its kind runs it (its attempts count on). Handlers check their subject's state, so a
second run is safe. A job that is not dead is refused (exit 1), as is one whose unique key another
waiting job holds (that job does the work).`

// deadJob is a dead job as bankrail jobs dead --json prints it.
type deadJob struct {
	ID            string    `json:"id"`
	Kind          string    `json:"kind"`
	TenantID      string    `json:"tenantId"`
	Attempts      int       `json:"attempts"`
	MaxAttempts   int       `json:"maxAttempts"`
	LeaseExpiries int       `json:"leaseExpiries"`
	LastError     string    `json:"lastError"`
	CreatedAt     time.Time `json:"createdAt"`
	DiedAt        time.Time `json:"diedAt"`
}

// jobsDead binds the flags of "bankrail jobs dead".
func jobsDead(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App) error {
	asJSON := fs.Bool("json", false, "print the jobs as one JSON array (for scripts)")
	limit := fs.Int("limit", 100, "list at most this many jobs")
	return func(ctx context.Context, a *app.App) error {
		if *limit <= 0 {
			return errors.New("--limit must be at least 1")
		}
		dead, err := a.Store().DeadJobs(ctx, *limit)
		if err != nil {
			return err
		}
		listed := make([]deadJob, 0, len(dead))
		for _, j := range dead {
			listed = append(listed, deadJob{ID: j.ID, Kind: j.Kind, TenantID: j.TenantID, Attempts: j.Attempt, MaxAttempts: j.MaxAttempts,
				LeaseExpiries: j.LeaseExpiries, LastError: j.LastError, CreatedAt: j.CreatedAt.UTC(), DiedAt: j.FinishedAt.UTC()})
		}
		if *asJSON {
			return json.NewEncoder(stdout).Encode(listed)
		}
		if len(listed) == 0 {
			_, err := fmt.Fprintln(stdout, "no dead jobs")
			return err
		}
		var b strings.Builder
		for _, j := range listed {
			tenant := j.TenantID
			if tenant == "" {
				tenant = "-"
			}
			fmt.Fprintf(&b, "%s  %s  tenant %s  attempts %d/%d  lease expiries %d  died %s\n    last error: %s\n",
				j.ID, j.Kind, tenant, j.Attempts, j.MaxAttempts, j.LeaseExpiries, when(j.DiedAt), j.LastError)
		}
		_, err = io.WriteString(stdout, b.String())
		return err
	}
}

// jobsRetry binds the flags of "bankrail jobs retry".
func jobsRetry(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App) error {
	id := fs.String("id", "", "the dead job's id (required; bankrail jobs dead lists them)")
	return func(ctx context.Context, a *app.App) error {
		if *id == "" {
			return errors.New("--id is required: the dead job's id (bankrail jobs dead lists them)")
		}
		if err := a.Store().RetryDeadJob(ctx, *id); err != nil {
			return err
		}
		_, err := fmt.Fprintf(stdout, "job %s is available again\n", *id)
		return err
	}
}
