package report

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/job"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/paging"
	"github.com/bankrail/bankrail/notification"
)

// KindGenerate is the job kind that generates one report.
const KindGenerate = "report.generate"

// GenerateArgs are the arguments of a KindGenerate job.
type GenerateArgs struct {
	ReportID string `json:"reportId"`
}

// Service creates, lists, generates and opens reports.
type Service struct {
	repo     Repository
	inTx     Transactor
	tree     Hierarchy
	accounts Accounts
	sources  map[Type]source
	clock    clock.Clock
	log      *slog.Logger
	chunk    int
	busy     func() bool  // the API has requests in flight: a generation gives way (pacer)
	duty     atomic.Int32 // percent of the time a generation works while busy (pacer)
	aside    func(fn func() error) error
}

// Deps are what a Service needs.
type Deps struct {
	Reports   Repository // outside any unit of work: reads, chunks, Start
	InTx      Transactor
	Data      Data
	Hierarchy Hierarchy
	Accounts  Accounts // the Connect accounts: LedgerAccounts
	Banks     *bank.Registry
	Clock     clock.Clock
	Log       *slog.Logger
	ChunkSize int // compressed bytes per stored chunk (default 512 KiB)
	// Busy reports whether the instance is answering API requests now; a
	// generation then works at most DutyCycle percent of the time (pacer).
	// Nil: generations never pause.
	Busy func() bool
	// DutyCycle is the percent of the time a generation works while Busy:
	// after each PaceRows rows it rests (100-DutyCycle)/DutyCycle times as
	// long as they took. 0 (or outside 1 to 100): DefaultDutyCycle; 100: it
	// never rests.
	DutyCycle int
	// Aside runs a generation's reading, formatting and compression (fn)
	// as background work: on a thread of low CPU priority
	// (worker.LowPriority), so that a report never starves the API. Nil:
	// fn runs as it is.
	Aside func(fn func() error) error
}

// DefaultChunkSize is how many compressed bytes a stored chunk holds.
const DefaultChunkSize = 512 << 10

// NewService returns a report service.
func NewService(d Deps) *Service {
	if d.ChunkSize <= 0 {
		d.ChunkSize = DefaultChunkSize
	}
	if d.Aside == nil {
		d.Aside = func(fn func() error) error { return fn() }
	}
	s := &Service{repo: d.Reports, inTx: d.InTx, tree: d.Hierarchy, accounts: d.Accounts,
		sources: sources(d.Data, d.Banks), clock: d.Clock, log: d.Log, chunk: d.ChunkSize, busy: d.Busy, aside: d.Aside}
	s.SetDutyCycle(d.DutyCycle)
	return s
}

// SetDutyCycle changes Deps.DutyCycle for the generations that start
// after it (bankrail-bench compares duty cycles in one run); outside 1 to
// 100 it is DefaultDutyCycle.
func (s *Service) SetDutyCycle(percent int) {
	if percent < 1 || percent > 100 {
		percent = DefaultDutyCycle
	}
	s.duty.Store(int32(percent))
}

// Create checks every rule of the contract at once (one VALIDATION_FAILURE
// listing every failing field), answers REPORT_EMPTY when allowEmpty is
// false and nothing matches, and otherwise stores the report as
// REPORT_REQUESTED with the job that generates it, in one transaction.
func (s *Service) Create(ctx context.Context, in Input) (Report, error) {
	if _, err := identity.Authorize(ctx, identity.ReportCreate); err != nil {
		return Report{}, err
	}
	src, ok := s.sources[in.Type]
	if !ok {
		return Report{}, fmt.Errorf("report type %q has no source", in.Type)
	}
	if in.Type == Connect {
		// The path names the account: an unknown or foreign one is 404.
		visible := false
		if IsUUID(in.BankAccountID) {
			var err error
			if visible, err = s.accounts.Visible(ctx, in.ViewerID, in.BankAccountID); err != nil {
				return Report{}, fmt.Errorf("find bank account: %w", err)
			}
		}
		if !visible {
			return Report{}, errs.NotFoundf("No Connect account %s.", in.BankAccountID)
		}
	}
	var v errs.Validation
	p := validate(in, &v)
	if err := s.checkScope(ctx, in, p, &v); err != nil {
		return Report{}, err
	}
	if err := v.Err(); err != nil {
		return Report{}, err
	}
	createdAt, err := clock.UnitTime(ctx, s.clock, in.ViewerID)
	if err != nil {
		return Report{}, err
	}
	r := Report{ID: uuid.NewString(), CustomerID: in.ViewerID, ClientID: in.ClientID, UserID: in.UserID,
		Type: in.Type, Status: Requested, Params: p, CreatedAt: createdAt}
	if hasAllowEmpty(r.Type) && !p.AllowEmpty {
		found, err := src.any(ctx, ScopeOf(r))
		if err != nil {
			return Report{}, fmt.Errorf("look for report entries: %w", err)
		}
		if !found {
			return Report{}, errs.E(errs.ReportEmpty, "Nothing matches this report's period and customer; no report was made. Send allowEmpty: true for a report with the header row alone.")
		}
	}
	j, err := job.New(KindGenerate, GenerateArgs{ReportID: r.ID}, r.CreatedAt)
	if err != nil {
		return Report{}, err
	}
	// Due at createdAt on the creator's tenant clock, which the sandbox may
	// have moved ahead of the base clock: the job names the tenant.
	if j.TenantID, err = s.tree.TenantOf(ctx, in.ViewerID); err != nil {
		return Report{}, fmt.Errorf("find the tenant of customer %s: %w", in.ViewerID, err)
	}
	j.MaxAttempts = MaxAttempts + 1 // the report counts its own attempts and fails itself after MaxAttempts
	err = s.inTx(ctx, func(tx Repos) error {
		if err := tx.Reports().Create(ctx, r); err != nil {
			return err
		}
		return tx.Jobs().Enqueue(ctx, j)
	})
	return r, err
}

// Get returns a report the viewer may see.
func (s *Service) Get(ctx context.Context, viewer, id string) (Report, error) {
	if _, err := identity.Authorize(ctx, identity.ReportRead); err != nil {
		return Report{}, err
	}
	if !IsUUID(id) {
		return Report{}, errs.E(errs.MalformedPathParam, "Report id %q is not a uuid.", id)
	}
	return s.repo.Get(ctx, viewer, id)
}

// List returns a page of the reports viewer may see, newest first. A
// customerId outside the viewer's hierarchy lists nothing.
func (s *Service) List(ctx context.Context, viewer string, f ListFilter) (paging.Page[Report], error) {
	if _, err := identity.Authorize(ctx, identity.ReportRead); err != nil {
		return paging.Page[Report]{}, err
	}
	if f.Page < 1 {
		f.Page = 1
	}
	if f.Limit < 1 || f.Limit > MaxPageLimit {
		f.Limit = DefaultPageLimit
	}
	return s.repo.List(ctx, viewer, f)
}

// Generate is the KindGenerate job: it writes the report's file in chunks
// and then, in one transaction, makes it AVAILABLE and enqueues
// report_available. A crash leaves the report GENERATING with the job's
// lease running out; the next attempt starts over (Start forgets the
// chunks of earlier attempts), so a file is never half-written and
// AVAILABLE. After MaxAttempts the report is FAILED.
func (s *Service) Generate(ctx context.Context, args GenerateArgs) error {
	// basetime: the attempt's start, before the report (and so its tenant) is read
	r, err := s.repo.Start(ctx, args.ReportID, clock.Base(s.clock))
	switch {
	case errs.Is(err, errs.NotFound):
		return job.Cancel(err)
	case err != nil:
		return err
	case r.Status != Generating:
		return nil // generated (or failed) by an earlier attempt
	case r.Attempt > MaxAttempts:
		return s.finish(ctx, r, Failed, fmt.Errorf("gave up after %d attempts", MaxAttempts))
	}
	start := time.Now() // basetime: how long the generation took, for the log
	if err := s.aside(func() error { return s.write(ctx, &r) }); err != nil {
		if r.Attempt >= MaxAttempts {
			return s.finish(ctx, r, Failed, err)
		}
		return fmt.Errorf("generate report %s (attempt %d): %w", r.ID, r.Attempt, err)
	}
	if s.log != nil {
		s.log.Info("report generated", "report", r.ID, "type", r.Type, "rows", r.Rows, "bytes", r.Size,
			"compressed", r.Compressed, "took", time.Since(start)) // basetime: a duration, for the log
	}
	return s.finish(ctx, r, Available, nil)
}

// write streams the report's rows into its chunks.
func (s *Service) write(ctx context.Context, r *Report) error {
	f := newFileWriter(ctx, s.repo, r.ID, r.Attempt, s.chunk)
	defer f.Abort()
	if err := f.csv.Write(Headers[r.Type]); err != nil {
		return err
	}
	pace := newPacer(s.busy, int(s.duty.Load()))
	err := s.sources[r.Type].rows(ctx, ScopeOf(*r), func(rec []string) error {
		r.Rows++
		neutralise(r.Type, rec)
		if err := f.csv.Write(rec); err != nil {
			return err
		}
		return pace.row(ctx)
	})
	if err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	r.Size, r.Compressed = f.raw, f.stored
	return nil
}

// finish records the end of an attempt, at the time of the report's
// tenant, with its notification, in one transaction.
func (s *Service) finish(ctx context.Context, r Report, st Status, cause error) error {
	at, err := clock.UnitTime(ctx, s.clock, r.CustomerID)
	if err != nil {
		return err
	}
	r.Status, r.GeneratedAt = st, at
	if cause != nil {
		r.Failure = cause.Error()
		if s.log != nil {
			s.log.Warn("report failed", "report", r.ID, "err", cause)
		}
	}
	msg, err := notify.New(notify.Target{CustomerID: r.CustomerID, ClientID: r.ClientID}, "", notification.TypeReportAvailable,
		notification.Report{Report: r.ID, Type: string(r.Type), Status: string(st), Timestamp: at})
	if err != nil {
		return err
	}
	err = s.inTx(ctx, func(tx Repos) error {
		if err := tx.Reports().Finish(ctx, r); err != nil {
			return err
		}
		return tx.Outbox().Enqueue(ctx, at, msg)
	})
	if errs.Is(err, errs.Conflict) {
		return job.Cancel(err) // a newer attempt holds the report
	}
	if err == nil && cause != nil {
		return job.Cancel(cause)
	}
	return err
}
