package transfer

import (
	"context"
	"strings"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/paging"
)

// Files lists the production files exchanged with the bank (pain.001 out,
// pain.002 in), newest first, for an operator (identity.BankFilesRead).
func (s *Service) Files(ctx context.Context, f FileFilter) (paging.Page[File], error) {
	if _, err := identity.Authorize(ctx, identity.BankFilesRead); err != nil {
		return paging.Page[File]{}, err
	}
	return s.transfers.Files(ctx, "", false, f)
}

// File reads one production file with its XML, for an operator.
func (s *Service) File(ctx context.Context, id string) (File, error) {
	if _, err := identity.Authorize(ctx, identity.BankFilesRead); err != nil {
		return File{}, err
	}
	if !ids.IsUUID(id) {
		return File{}, errs.E(errs.MalformedPathParam, "The file id %q is not a uuid.", id)
	}
	return s.transfers.File(ctx, "", strings.ToLower(id))
}

// SandboxFiles lists the files the sandbox's mock bank exchanged about the
// transfers of viewerCustomerID's tree, newest first. Whoever may read the
// payments (and so their refunds and payouts) may read them
// (identity.PaymentRead): they hold nothing else.
func (s *Service) SandboxFiles(ctx context.Context, viewerCustomerID string, f FileFilter) (paging.Page[File], error) {
	if _, err := identity.Authorize(ctx, identity.PaymentRead); err != nil {
		return paging.Page[File]{}, err
	}
	return s.transfers.Files(ctx, viewerCustomerID, true, f)
}

// SandboxFile reads one of the mock bank's files of viewerCustomerID's
// tree with its XML (another customer's is NOT_FOUND).
func (s *Service) SandboxFile(ctx context.Context, viewerCustomerID, id string) (File, error) {
	if _, err := identity.Authorize(ctx, identity.PaymentRead); err != nil {
		return File{}, err
	}
	if !ids.IsUUID(id) {
		return File{}, errs.E(errs.MalformedPathParam, "The file id %q is not a uuid.", id)
	}
	if viewerCustomerID == "" {
		return File{}, errs.NotFoundf("bank file %s was not found.", id)
	}
	return s.transfers.File(ctx, viewerCustomerID, strings.ToLower(id))
}
