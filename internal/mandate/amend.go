package mandate

import (
	"context"
	"crypto/subtle"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ids"
)

// Amend asks the payer to change the terms of a mandate of viewerCustomerID
// (POST /mandates/{id}/amendments): in order, the mandate must be ACTIVE
// or SUSPENDED (409 RESOURCE_NOT_MODIFIABLE), must have no open amendment
// (409 CONFLICT), and the request must pass the contract's rules
// (CheckAmendment, 422). The amendment, its event and its notification are
// written in one unit of work, with the mandate locked.
func (s *Service) Amend(ctx context.Context, viewerCustomerID, mandateID string, in AmendInput) (Amendment, error) {
	if _, err := identity.Authorize(ctx, identity.MandateChange); err != nil {
		return Amendment{}, err
	}
	m, err := s.Get(ctx, viewerCustomerID, mandateID)
	if err != nil {
		return Amendment{}, err
	}
	if open, err := s.amendments.OpenOf(ctx, m.ID); err == nil {
		if _, err := s.settleAmendment(ctx, open); err != nil { // an overdue one is abandoned first
			return Amendment{}, err
		}
	} else if !errs.Is(err, errs.NotFound) {
		return Amendment{}, err
	}
	id := ids.New()
	token, err := newToken()
	if err != nil {
		return Amendment{}, err
	}
	var out Amendment
	_, err = s.change(ctx, m.ID, func(r Repos, m Mandate, now time.Time) (Mandate, error) {
		if !m.Status.Amendable() {
			return Mandate{}, errs.E(errs.NotModifiable, "A %s mandate cannot be amended: only ACTIVE or SUSPENDED mandates can.", m.Status)
		}
		open, err := r.Amendments().OpenOf(ctx, m.ID)
		switch {
		case err == nil:
			return Mandate{}, errs.E(errs.Conflict, "The mandate has an amendment awaiting the payer's approval (%s); recall it or wait for the answer.", open.ID)
		case !errs.Is(err, errs.NotFound):
			return Mandate{}, err
		}
		changes, err := CheckAmendment(m, in, s.cfg.MaxMajor, now)
		if err != nil {
			return Mandate{}, err
		}
		out = Amendment{ID: id, MandateID: m.ID, CustomerID: m.CustomerID, Track: TrackBilateral,
			Initiator: InitiatorCustomer, Status: AwaitingApproval, Changes: changes, Token: token, CreatedAt: now, UpdatedAt: now}
		if err := r.Amendments().Create(ctx, out); err != nil {
			return Mandate{}, err
		}
		return m, s.tell(ctx, r, m, out, EventAmendmentRequested, now)
	})
	if err != nil {
		return Amendment{}, err
	}
	return out, nil
}

// GetAmendment reads an amendment of a mandate of viewerCustomerID (or
// below it); a recalled one is RESOURCE_NOT_FOUND. An overdue one is
// abandoned first.
func (s *Service) GetAmendment(ctx context.Context, viewerCustomerID, id string) (Amendment, error) {
	if _, err := identity.Authorize(ctx, identity.MandateRead); err != nil {
		return Amendment{}, err
	}
	if err := checkID("amendment", id); err != nil {
		return Amendment{}, err
	}
	a, err := s.amendments.Get(ctx, viewerCustomerID, strings.ToLower(id))
	if err != nil {
		return Amendment{}, err
	}
	return s.settleAmendment(ctx, a)
}

// Recall withdraws an open amendment (POST /amendments/{id}/recall): it is
// RECALLED and reads as 404 from then on. An amendment already answered is
// 409 RESOURCE_NOT_MODIFIABLE.
func (s *Service) Recall(ctx context.Context, viewerCustomerID, id string) (Amendment, error) {
	if _, err := identity.Authorize(ctx, identity.MandateChange); err != nil {
		return Amendment{}, err
	}
	a, err := s.GetAmendment(ctx, viewerCustomerID, id)
	if err != nil {
		return Amendment{}, err
	}
	return s.answer(ctx, a, Recall)
}

// Answer plays the payer's answer to an amendment of viewerCustomerID
// (sandbox: POST /sandbox/amendments/{id}/approve or /decline).
func (s *Service) Answer(ctx context.Context, viewerCustomerID, id string, approve bool) (Amendment, error) {
	if _, err := identity.Authorize(ctx, identity.SandboxAct); err != nil {
		return Amendment{}, err
	}
	a, err := s.GetAmendment(ctx, viewerCustomerID, id)
	if err != nil {
		return Amendment{}, err
	}
	return s.answer(ctx, a, answerOf(approve))
}

// answerOf is the payer's answer.
func answerOf(approve bool) Answer {
	if approve {
		return Approve
	}
	return Refuse
}

// AmendmentForPayer reads the amendment behind the payer's page and its
// mandate: token must be the amendment's, and a recalled amendment is
// RESOURCE_NOT_FOUND, as a missing one.
func (s *Service) AmendmentForPayer(ctx context.Context, id, token string) (Amendment, Mandate, error) {
	notFound := errs.NotFoundf("This amendment link is not valid.")
	if !ids.IsUUID(id) || token == "" {
		return Amendment{}, Mandate{}, notFound
	}
	a, err := s.amendments.GetByID(ctx, strings.ToLower(id))
	switch {
	case errs.Is(err, errs.NotFound):
		return Amendment{}, Mandate{}, notFound
	case err != nil:
		return Amendment{}, Mandate{}, err
	case a.Status == Recalled || subtle.ConstantTimeCompare([]byte(a.Token), []byte(token)) != 1:
		return Amendment{}, Mandate{}, notFound
	}
	if a, err = s.settleAmendment(ctx, a); err != nil {
		return Amendment{}, Mandate{}, err
	}
	m, err := s.mandates.GetByID(ctx, a.MandateID)
	if err != nil {
		return Amendment{}, Mandate{}, err
	}
	m, err = s.settle(ctx, m)
	return a, m, err
}

// AnswerAmendmentAsPayer is the payer's answer on the mock bank's amendment page.
func (s *Service) AnswerAmendmentAsPayer(ctx context.Context, id, token string, approve bool) (Amendment, error) {
	a, _, err := s.AmendmentForPayer(ctx, id, token)
	if err != nil {
		return Amendment{}, err
	}
	return s.answer(ctx, a, answerOf(approve))
}

// answer ends amendment a with ans in one unit of work, the mandate locked
// first: on approval the changes apply to the mandate in the same
// transaction (only while it is ACTIVE or SUSPENDED; else 409
// RESOURCE_NOT_MODIFIABLE and the amendment stays open).
func (s *Service) answer(ctx context.Context, a Amendment, ans Answer) (Amendment, error) {
	var out Amendment
	err := s.inTx(ctx, func(r Repos) error {
		m, err := r.Mandates().Lock(ctx, a.MandateID)
		if err != nil {
			return err
		}
		cur, err := r.Amendments().GetByID(ctx, a.ID)
		if err != nil {
			return err
		}
		now, err := clock.UnitTime(ctx, s.clock, m.CustomerID)
		if err != nil {
			return err
		}
		if out, err = ans.Apply(cur, now); err != nil {
			return err
		}
		if ans.To == Approved {
			if m, err = s.applyChanges(ctx, r, m, out.Changes, now); err != nil {
				return err
			}
		}
		if err := r.Amendments().End(ctx, out, ans.Event); err != nil {
			return err
		}
		if !ans.Notify {
			return nil
		}
		return s.tell(ctx, r, m, out, ans.Event, now)
	})
	return out, err
}

// applyChanges writes an approved amendment's changes to m: the rules are
// checked again against the mandate as it is now.
func (s *Service) applyChanges(ctx context.Context, r Repos, m Mandate, c Changes, now time.Time) (Mandate, error) {
	switch {
	case m.ExpiryDue(now) || !m.Status.Amendable():
		return Mandate{}, errs.E(errs.NotModifiable, "The mandate is no longer ACTIVE or SUSPENDED: the amendment cannot be approved.")
	case c.ValidityFrom != nil && m.Used():
		return Mandate{}, errs.E(errs.NotModifiable, "The mandate has been used for payments: validity.from can no longer change.")
	}
	next := c.ApplyTo(m, now)
	if err := r.Mandates().Save(ctx, next, ""); err != nil {
		return Mandate{}, err
	}
	next.Version++
	return next, nil
}

// tell writes the notification of amendment event typ.
func (s *Service) tell(ctx context.Context, r Repos, m Mandate, a Amendment, typ string, now time.Time) error {
	msg, err := message(m, &a, typ, now)
	if err != nil {
		return err
	}
	return r.Outbox().Enqueue(ctx, now, msg)
}

// settleAmendment abandons a when the payer's time is up. When another
// request or instance ended it meanwhile, it returns it as stored.
func (s *Service) settleAmendment(ctx context.Context, a Amendment) (Amendment, error) {
	now, err := clock.UnitTime(ctx, s.clock, a.CustomerID)
	if err != nil || !a.AbandonDue(now) {
		return a, err
	}
	out, err := s.answer(ctx, a, Abandon)
	if errs.Is(err, errs.NotModifiable) || errs.Is(err, errs.Conflict) {
		return s.amendments.GetByID(ctx, a.ID)
	}
	return out, err
}
