package statement

import (
	"context"
	"strings"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/paging"
)

// Page sizes of the lists.
const (
	DefaultListLimit = 50
	MaxListLimit     = 500
)

func limitOf(n int) int {
	if n <= 0 {
		return DefaultListLimit
	}
	return min(n, MaxListLimit)
}

// Imports lists the kept summaries of imported files, newest first, for
// an operator (identity.BankFilesRead).
func (im *Importer) Imports(ctx context.Context, limit int) ([]Summary, error) {
	return paging.Items(im.ImportsPage(ctx, 1, limit, nil))
}

// ImportsPage is page number page (from 1) of Imports, limit a page, with
// the total (the dashboard's pages), or, with after (a cursor's
// position), the page that follows it; Next leads to the page after.
func (im *Importer) ImportsPage(ctx context.Context, page, limit int, after *paging.Position) (paging.Page[Summary], error) {
	if _, err := identity.Authorize(ctx, identity.BankFilesRead); err != nil {
		return paging.Page[Summary]{}, err
	}
	limit = limitOf(limit)
	return im.d.Reads.Imports(ctx, after, paging.Offset(page, limit), limit)
}

// Exceptions lists reconciliation exceptions, newest first (only those in
// status when it is set), for an operator (identity.BankFilesRead).
func (im *Importer) Exceptions(ctx context.Context, status ExceptionStatus, limit int) ([]Exception, error) {
	return paging.Items(im.ExceptionsPage(ctx, status, 1, limit, nil))
}

// ExceptionsPage is page number page (from 1) of Exceptions, limit a page,
// with the total (the dashboard's pages), or, with after (a cursor's
// position), the page that follows it; Next leads to the page after.
func (im *Importer) ExceptionsPage(ctx context.Context, status ExceptionStatus, page, limit int, after *paging.Position) (paging.Page[Exception], error) {
	if _, err := identity.Authorize(ctx, identity.BankFilesRead); err != nil {
		return paging.Page[Exception]{}, err
	}
	switch status {
	case "", ExceptionOpen, ExceptionResolved:
	default:
		var v errs.Validation
		v.Add(errs.InvalidValue, "status", "status must be OPEN or RESOLVED, not %q.", status)
		return paging.Page[Exception]{}, v.Err()
	}
	limit = limitOf(limit)
	return im.d.Reads.Exceptions(ctx, status, after, paging.Offset(page, limit), limit)
}

// Resolve closes exception id with the operator's note (what was done
// about it: booked by hand, a bank fee accepted, asked the bank), for an
// operator (identity.BankExceptions). Resolving moves no money: what the
// exception needs in the books is done by the operator's other means.
func (im *Importer) Resolve(ctx context.Context, id, note string) (Exception, error) {
	p, err := identity.Authorize(ctx, identity.BankExceptions)
	if err != nil {
		return Exception{}, err
	}
	if note = strings.TrimSpace(note); note == "" || len(note) > 500 {
		var v errs.Validation
		v.Add(errs.ValueRequired, "note", "note is required (at most 500 characters): what was done about the exception.")
		return Exception{}, v.Err()
	}
	now, err := clock.UnitTime(ctx, im.d.Clock, "")
	if err != nil {
		return Exception{}, err
	}
	by := p.Username
	if by == "" {
		by = p.UserID
	}
	var out Exception
	err = im.d.InTx(ctx, func(r Repos) error {
		out, err = r.Statements().Resolve(ctx, id, note, by, now)
		return err
	})
	return out, err
}
