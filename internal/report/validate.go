package report

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
)

// Input is one report creation as the caller sent it: absent fields are nil.
type Input struct {
	Type             Type
	ViewerID         string // the caller's customer
	ClientID         string
	UserID           string
	StartDate        *string
	EndDate          *string
	CustomerID       *string
	AccountID        *string
	AllowEmpty       *bool
	IncludeEventFees *bool
	TransactionTypes *[]string
	DateFilterType   *string
	BankAccountID    string // CONNECT: from the path
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// IsUUID reports whether s is a uuid in its canonical form.
func IsUUID(s string) bool { return uuidPattern.MatchString(s) }

// validate checks every rule that needs no lookup and returns the accepted
// parameters; v collects every failing field.
func validate(in Input, v *errs.Validation) Params {
	var p Params
	// Whether a date was given is ok, never IsZero: 0001-01-01T00:00:00Z
	// is a date like any other and must meet the 92 days.
	var startOK, endOK bool
	p.Start, startOK = dateField(v, "startDate", in.StartDate)
	p.End, endOK = dateField(v, "endDate", in.EndDate)
	if startOK && endOK {
		switch {
		case p.End.Before(p.Start):
			v.Add(errs.InvalidDate, "endDate", "endDate must not be before startDate.")
		case p.End.Sub(p.Start) > MaxPeriod:
			v.Add(errs.OutOfRange, "endDate", "endDate must be at most 92 days after startDate; split the period into several reports.")
		}
	}
	if in.CustomerID != nil {
		p.CustomerID = *in.CustomerID
		if !IsUUID(p.CustomerID) {
			v.Add(errs.InvalidFormat, "customerId", "customerId must be a uuid.")
		}
	}
	if in.AccountID != nil {
		p.AccountID = *in.AccountID
		if !IsUUID(p.AccountID) {
			v.Add(errs.InvalidFormat, "accountId", "accountId must be a uuid.")
		}
	}
	if in.AllowEmpty != nil {
		p.AllowEmpty = *in.AllowEmpty
	}
	if in.IncludeEventFees != nil {
		p.IncludeEventFees = *in.IncludeEventFees
	}
	p.TransactionTypes = []string{"PAYMENT", "REFUND"}
	if in.TransactionTypes != nil {
		p.TransactionTypes = nil
		if len(*in.TransactionTypes) == 0 {
			v.Add(errs.TooFew, "transactionTypes", "transactionTypes must name PAYMENT, REFUND or both; leave it out for both.")
		}
		for i, t := range *in.TransactionTypes {
			switch t {
			case "PAYMENT", "REFUND":
				p.TransactionTypes = append(p.TransactionTypes, t)
			default:
				v.Add(errs.InvalidValue, fmt.Sprintf("transactionTypes[%d]", i), "transactionTypes holds PAYMENT or REFUND, not %q.", t)
			}
		}
	}
	p.DateFilter = "createdAt"
	if in.DateFilterType != nil {
		switch *in.DateFilterType {
		case "createdAt", "updatedAt":
			p.DateFilter = *in.DateFilterType
		default:
			v.Add(errs.InvalidValue, "dateFilterType", "dateFilterType must be createdAt or updatedAt, not %q.", *in.DateFilterType)
		}
	}
	p.BankAccountID = in.BankAccountID
	return p
}

// dateField parses a required ISO 8601 date-time field; ok is false when
// it is missing or malformed (and v holds why).
func dateField(v *errs.Validation, name string, s *string) (t time.Time, ok bool) {
	if s == nil || *s == "" {
		v.Add(errs.ValueRequired, name, "%s is required: an ISO 8601 date-time such as 2026-06-01T00:00:00Z.", name)
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		v.Add(errs.InvalidFormat, name, "%s must be an ISO 8601 date-time such as 2026-06-01T00:00:00Z, got %q.", name, *s)
		return time.Time{}, false
	}
	return t.UTC(), true
}

// checkScope adds the failures that need a lookup: a customerId or an
// accountId outside the caller's hierarchy is INVALID_VALUE, the same
// answer as an unknown one.
func (s *Service) checkScope(ctx context.Context, in Input, p Params, v *errs.Validation) error {
	if p.CustomerID != "" && !v.HasPath("customerId") {
		ok, err := s.tree.IsDescendant(ctx, in.ViewerID, p.CustomerID)
		if err != nil {
			return fmt.Errorf("check customerId: %w", err)
		}
		if !ok {
			v.Add(errs.InvalidValue, "customerId", "customerId is not your customer nor one below it.")
		}
	}
	if p.AccountID != "" && !v.HasPath("accountId") {
		owner := in.ViewerID
		if p.CustomerID != "" && !v.HasPath("customerId") {
			owner = p.CustomerID
		}
		ok, err := s.accounts.Visible(ctx, owner, p.AccountID)
		if err != nil {
			return fmt.Errorf("check accountId: %w", err)
		}
		if !ok {
			v.Add(errs.InvalidValue, "accountId", "accountId is not a Connect account of yours nor of a customer below you.")
		}
	}
	return nil
}
