package alias

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/job"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/paging"
)

// Service orders, issues, reads and switches aliases.
type Service struct {
	repo  Repository // reads
	inTx  Transactor
	keys  *idempotency.Guard
	clock clock.Clock
	log   *slog.Logger
}

// NewService returns the alias service.
func NewService(repo Repository, inTx Transactor, keys *idempotency.Guard, clk clock.Clock, log *slog.Logger) *Service {
	return &Service{repo: repo, inTx: inTx, keys: keys, clock: clk, log: log}
}

// Input is one POST /orders/account-aliases.
type Input struct {
	ViewerCustomerID string
	IdempotencyKey   string
	AccountID        string
	Count            int64
	Scenario         string // "" or ScenarioFailed (sandbox)
}

// validate checks every field at once and normalises the input.
func (in *Input) validate() error {
	var v errs.Validation
	in.AccountID = strings.ToLower(strings.TrimSpace(in.AccountID))
	switch {
	case in.AccountID == "":
		v.Add(errs.ValueRequired, "accountId", "accountId is required: the Connect account the aliases are for.")
	case !ids.IsUUID(in.AccountID):
		v.Add(errs.InvalidFormat, "accountId", "accountId must be a uuid.")
	}
	switch {
	case in.Count < MinCount:
		v.Add(errs.TooLow, "count", "count must be at least %d.", MinCount)
	case in.Count > MaxCount:
		v.Add(errs.TooHigh, "count", "count must be at most %d.", MaxCount)
	}
	return v.Err()
}

// Response is the answer to an order as the client got it, kept under the
// Idempotency-Key for replays.
type Response = idempotency.Response

// Create validates in and stores the PROCESSING order with the job that
// issues its aliases, in one unit of work (the job exists if and only if
// the order does). render gives the body of the answer. Another
// customer's account is RESOURCE_NOT_FOUND, as an unknown one; an account
// that is not ACTIVE is VALIDATION_FAILURE on accountId.
func (s *Service) Create(ctx context.Context, in Input, render func(Order) ([]byte, error)) (Response, error) {
	if _, err := identity.Authorize(ctx, identity.AliasOrder); err != nil {
		return Response{}, err
	}
	if err := in.validate(); err != nil {
		return Response{}, err
	}
	key := idempotency.Request{CustomerID: in.ViewerCustomerID, Key: in.IdempotencyKey, Noun: "alias order",
		Fingerprint: idempotency.Fingerprint("POST /orders/account-aliases", []byte(in.AccountID),
			[]byte(strconv.FormatInt(in.Count, 10)), []byte(in.Scenario))}
	return idempotency.Create(ctx, s.keys, key, s.inTx, func(r Repos) (idempotency.Result, error) {
		acct, err := r.Ledger().Account(ctx, in.ViewerCustomerID, in.AccountID)
		if err != nil {
			return idempotency.Result{}, err
		}
		if acct.Status != ledger.AccountActive {
			var v errs.Validation
			v.Add(errs.InvalidValue, "accountId", "The account is %s; aliases are issued for an ACTIVE account only.", acct.Status)
			return idempotency.Result{}, v.Err()
		}
		now, err := clock.UnitTime(ctx, s.clock, acct.CustomerID)
		if err != nil {
			return idempotency.Result{}, err
		}
		o := Order{ID: ids.New(), AccountID: acct.ID, CustomerID: acct.CustomerID, Status: Processing,
			Requested: int(in.Count), Scenario: in.Scenario, CreatedAt: now, UpdatedAt: now}
		if err := r.Aliases().CreateOrder(ctx, o); err != nil {
			return idempotency.Result{}, err
		}
		// basetime: due at once on the base clock: aliases follow the worker, not the sandbox clock.
		j, err := job.New(KindIssue, IssueArgs{OrderID: o.ID}, clock.Base(s.clock))
		if err != nil {
			return idempotency.Result{}, err
		}
		if err := r.Jobs().Enqueue(ctx, j); err != nil {
			return idempotency.Result{}, err
		}
		body, err := render(o)
		if err != nil {
			return idempotency.Result{}, err
		}
		return idempotency.Result{ResourceID: o.ID, Body: body}, nil
	})
}

// maxConflicts is how many batches in a row Issue lets fail with CONFLICT
// (another worker took the batch, or an IBAN another order just issued)
// before it gives the job back to the queue's backoff.
const maxConflicts = 5

// Issue is the KindIssue job: it issues the order's aliases batch after
// batch, each batch its own unit of work, until the order is no longer
// PROCESSING. A crash between batches loses nothing: the next attempt (any
// instance, once the lease runs out) goes on from the order's completed.
func (s *Service) Issue(ctx context.Context, args IssueArgs) error {
	conflicts := 0
	for ctx.Err() == nil {
		done, err := s.IssueBatch(ctx, args.OrderID)
		switch {
		case errs.Is(err, errs.NotFound):
			return job.Cancel(err)
		case errs.Is(err, errs.Conflict) && conflicts < maxConflicts:
			conflicts++
			continue
		case err != nil:
			return err
		case done:
			return nil
		}
		conflicts = 0
	}
	return ctx.Err()
}

// IssueBatch issues the next batch (at most BatchSize) of aliases of order
// orderID in one unit of work, with the order's completed count, and ends
// the order when it is complete (COMPLETED with completedAt) or cannot go
// on (FAILED: the scenario, or an account no longer ACTIVE). done reports
// that the order is no longer PROCESSING. The order's row is held for the
// unit of work and the batch is saved only over the completed count it
// started from: two workers on one order never issue a batch twice nor
// count it twice.
func (s *Service) IssueBatch(ctx context.Context, orderID string) (done bool, err error) {
	err = s.inTx(ctx, func(r Repos) error {
		done = false
		o, err := r.Aliases().LockOrder(ctx, orderID)
		if err != nil {
			return err
		}
		if o.Status != Processing {
			done = true
			return nil
		}
		now, err := clock.UnitTime(ctx, s.clock, o.CustomerID)
		if err != nil {
			return err
		}
		from := o.Completed
		o.UpdatedAt = now
		fail := func(why string) error {
			o.Status, o.Failure, done = Failed, why, true
			return r.Aliases().Save(ctx, o, from, nil)
		}
		if o.Scenario == ScenarioFailed {
			return fail("the sandbox scenario " + ScenarioFailed)
		}
		acct, err := r.Ledger().Account(ctx, o.CustomerID, o.AccountID)
		if err != nil {
			return err
		}
		if acct.Status != ledger.AccountActive {
			return fail(fmt.Sprintf("the account is %s", acct.Status))
		}
		batch, err := s.batch(ctx, r, o, acct, now)
		if err != nil {
			return err
		}
		o.Completed += len(batch)
		if o.Completed >= o.Requested {
			o.Status, o.CompletedAt, done = Completed, now, true
		}
		return r.Aliases().Save(ctx, o, from, batch)
	})
	if err != nil {
		return false, err
	}
	return done, nil
}

// maxSalts bounds how often one alias's IBAN is drawn again because it was
// taken.
const maxSalts = 20

// batch draws the next aliases of o: IBANs that are no alias or account
// yet, nor twice in the batch.
func (s *Service) batch(ctx context.Context, r Repos, o Order, acct ledger.Account, now time.Time) ([]Alias, error) {
	n := min(BatchSize, o.Requested-o.Completed)
	out := make([]Alias, n)
	salts := make([]int, n)
	pending := make([]int, n)
	for i := range pending {
		pending[i] = i
	}
	seen := make(map[string]bool, n)
	for round := 0; len(pending) > 0; round++ {
		if round == maxSalts {
			return nil, fmt.Errorf("alias order %s: no free IBAN after %d draws", o.ID, maxSalts)
		}
		ibans := make([]string, 0, len(pending))
		for _, i := range pending {
			iban, err := NewIBAN(acct.IBAN, o.ID, o.Completed+i, salts[i])
			if err != nil {
				return nil, err
			}
			out[i].IBAN = iban
			ibans = append(ibans, iban)
		}
		taken, err := r.Aliases().Taken(ctx, ibans)
		if err != nil {
			return nil, err
		}
		var again []int
		for _, i := range pending {
			if iban := out[i].IBAN; taken[iban] || seen[iban] {
				salts[i]++
				again = append(again, i)
			} else {
				seen[iban] = true
			}
		}
		pending = again
	}
	for i := range out {
		out[i] = Alias{ID: ids.New(), AccountID: o.AccountID, CustomerID: o.CustomerID, OrderID: o.ID, Seq: o.Completed + i,
			IBAN: out[i].IBAN, Active: true, CreatedAt: now, UpdatedAt: now}
	}
	return out, nil
}

// Order reads an alias order viewerCustomerID may see.
func (s *Service) Order(ctx context.Context, viewerCustomerID, id string) (Order, error) {
	if _, err := identity.Authorize(ctx, identity.AliasRead); err != nil {
		return Order{}, err
	}
	if !ids.IsUUID(id) {
		return Order{}, errs.E(errs.MalformedPathParam, "The alias order id %q is not a uuid.", id)
	}
	return s.repo.Order(ctx, viewerCustomerID, strings.ToLower(id))
}

// Alias reads an alias viewerCustomerID may see.
func (s *Service) Alias(ctx context.Context, viewerCustomerID, id string) (Alias, error) {
	if _, err := identity.Authorize(ctx, identity.AliasRead); err != nil {
		return Alias{}, err
	}
	if !ids.IsUUID(id) {
		return Alias{}, errs.E(errs.MalformedPathParam, "The account alias id %q is not a uuid.", id)
	}
	return s.repo.Alias(ctx, viewerCustomerID, strings.ToLower(id))
}

// List returns one page of the aliases viewerCustomerID may see, and the total.
func (s *Service) List(ctx context.Context, viewerCustomerID string, f Filter) (paging.Page[Alias], error) {
	if _, err := identity.Authorize(ctx, identity.AliasRead); err != nil {
		return paging.Page[Alias]{}, err
	}
	f.OrderID, f.AccountID = strings.ToLower(f.OrderID), strings.ToLower(f.AccountID)
	return s.repo.List(ctx, viewerCustomerID, f)
}

// SetActive switches an alias viewerCustomerID may see on or off: funds
// sent to an inactive alias bounce. Setting the flag it already has
// changes only updatedAt.
func (s *Service) SetActive(ctx context.Context, viewerCustomerID, id string, active bool) (Alias, error) {
	if _, err := identity.Authorize(ctx, identity.AliasChange); err != nil {
		return Alias{}, err
	}
	if !ids.IsUUID(id) {
		return Alias{}, errs.E(errs.MalformedPathParam, "The account alias id %q is not a uuid.", id)
	}
	var out Alias
	err := s.inTx(ctx, func(r Repos) error {
		a, err := r.Aliases().Alias(ctx, viewerCustomerID, strings.ToLower(id))
		if err != nil {
			return err
		}
		now, err := clock.UnitTime(ctx, s.clock, a.CustomerID)
		if err != nil {
			return err
		}
		a.Active, a.UpdatedAt = active, now
		if err := r.Aliases().SetActive(ctx, a); err != nil {
			return err
		}
		out = a
		return nil
	})
	return out, err
}
