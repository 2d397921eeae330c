package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/job"
)

// buryJob enqueues a job of kind for tenant and lets its lease run out
// three times (claims that never finish, a minute apart on a fixed clock):
// the fourth claim, at 10:00 service time, buries it. It returns the job's
// id.
func buryJob(t *testing.T, storage []string, kind, tenant, uniqueKey string) string {
	t.Helper()
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	id := "0193f000-0000-7000-8000-" + strings.Repeat("0", 12-len(kind)) + kind
	onBooks(t, storage, func(ctx context.Context, a *app.App) error {
		q := a.Store().Jobs()
		if err := q.Enqueue(ctx, job.Job{ID: id, Kind: kind, TenantID: tenant, UniqueKey: uniqueKey, RunAt: t0}); err != nil {
			return err
		}
		for i := 0; i < 4; i++ {
			at := t0.Add(time.Duration(i) * time.Minute)
			got, err := q.Claim(ctx, job.ClaimRequest{Slots: map[string]int{kind: 1}, Now: t0.Add(time.Hour),
				LeaseNow: at, LeaseUntil: at.Add(time.Minute), MaxLeaseExpiries: 3})
			if err != nil {
				return err
			}
			if i < 3 && len(got.Jobs) != 1 || i == 3 && len(got.Dead) != 1 {
				t.Fatalf("claim %d: %+v", i+1, got)
			}
		}
		return nil
	})
	return id
}

// TestJobsDeadListsAndRetryRevives: bankrail jobs dead prints a job whose
// lease ran out three times (id, kind, tenant, attempts, expiries, when it
// died, last error), as text and as JSON; bankrail jobs retry --id makes it
// claimable again, after which none is dead; retrying a job that is not
// dead, one whose unique key a waiting job holds, or without --id, fails.
func TestJobsDeadListsAndRetryRevives(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		storage, admin := adminOn(t, db)
		if out := admin("jobs", "dead"); out != "no dead jobs\n" {
			t.Fatalf("no dead jobs yet: %q", out)
		}
		const tenant = "7d000000-0000-4000-8000-000000000009"
		id := buryJob(t, storage, "crash", tenant, "")

		out := admin("jobs", "dead")
		for _, want := range []string{id + "  crash  tenant " + tenant, "attempts 3/10", "lease expiries 3",
			"died 2026-03-02T10:00:00Z", "last error: its lease ran out 3 times"} {
			if !strings.Contains(out, want) {
				t.Errorf("jobs dead does not show %q:\n%s", want, out)
			}
		}
		var listed []deadJob
		if err := json.Unmarshal([]byte(admin("jobs", "dead", "--json")), &listed); err != nil || len(listed) != 1 {
			t.Fatalf("--json: %+v %v", listed, err)
		}
		if j := listed[0]; j.ID != id || j.Kind != "crash" || j.TenantID != tenant || j.Attempts != 3 || j.LeaseExpiries != 3 ||
			!j.DiedAt.Equal(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)) || !strings.Contains(j.LastError, "lease ran out 3 times") {
			t.Fatalf("--json: %+v", j)
		}

		if out := admin("jobs", "retry", "--id", id); !strings.Contains(out, "job "+id+" is available again") {
			t.Fatalf("retry: %q", out)
		}
		if out := admin("jobs", "dead"); out != "no dead jobs\n" {
			t.Fatalf("after retry: %q", out)
		}
		onBooks(t, storage, func(ctx context.Context, a *app.App) error {
			at := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
			got, err := a.Store().Jobs().Claim(ctx, job.ClaimRequest{Slots: map[string]int{"crash": 1}, Now: at,
				LeaseNow: at, LeaseUntil: at.Add(time.Minute), MaxLeaseExpiries: 3})
			if err != nil || len(got.Jobs) != 1 || got.Jobs[0].ID != id || got.Jobs[0].Attempt != 4 || got.Jobs[0].LeaseExpiries != 0 {
				t.Fatalf("claim after retry: %+v %v", got, err)
			}
			return nil
		})

		held := buryJob(t, storage, "timer", "", "timer:1")
		onBooks(t, storage, func(ctx context.Context, a *app.App) error {
			return a.Store().Jobs().Enqueue(ctx, job.Job{Kind: "timer", UniqueKey: "timer:1", RunAt: time.Now()})
		})
		for _, tt := range []struct {
			args []string
			want string
		}{
			{[]string{"jobs", "retry", "--id", id}, "dead job " + id + " was not found"}, // running now, not dead
			{[]string{"jobs", "retry", "--id", held}, "another job of its unique key is waiting"},
			{[]string{"jobs", "retry"}, "--id is required"},
			{[]string{"jobs", "dead", "--limit", "0"}, "--limit must be at least 1"},
		} {
			code, out, errOut := runCmd(t, append(tt.args, storage...)...)
			if code != 1 || !strings.Contains(errOut, tt.want) {
				t.Errorf("retry %v: exit %d\n%s%s", tt.args, code, out, errOut)
			}
		}
	})
}
