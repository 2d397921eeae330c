package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/iso"
	"github.com/bankrail/bankrail/internal/paging"
)

// Service opens accounts and reads accounts and transactions. Movements
// of money are written by the use cases that cause them (Connect
// reconciliation, refunds) through Repository inside their unit of work.
type Service struct {
	repo    Repository
	clock   clock.Clock
	aliases AliasResolver // nil: no account has aliases (receive.go)
}

// NewService returns the accounts service over repo (reads, and account
// creation which is atomic by itself).
func NewService(repo Repository, clk clock.Clock) *Service { return &Service{repo: repo, clock: clk} }

// AccountSpec describes an account to open (seed file, bankrail account
// create). ID and IBAN are derived from the customer, currency and
// nickname when absent, so that applying the same spec twice opens one
// account.
type AccountSpec struct {
	ID         string
	CustomerID string
	Currency   string
	IBAN       string
	Nickname   string
}

// namespace of the ids of accounts opened without one (uuid v5).
var accountNamespace = uuid.MustParse("3b9d0c4e-7a51-5f2e-8c61-2d4f6a8b0c1e")

// EnsureAccount opens the account of spec, or returns it unchanged
// (created false) when it exists. An account with the spec's id or IBAN
// that differs in customer or currency is CONFLICT.
func (s *Service) EnsureAccount(ctx context.Context, spec AccountSpec) (Account, bool, error) {
	a, err := s.accountOf(spec)
	if err != nil {
		return Account{}, false, err
	}
	existing, err := s.repo.AccountByIBAN(ctx, a.IBAN)
	if errs.Is(err, errs.NotFound) {
		existing, err = s.repo.Account(ctx, a.CustomerID, a.ID)
	}
	switch {
	case err == nil:
		if existing.ID != a.ID && spec.ID != "" || existing.CustomerID != a.CustomerID || existing.Currency != a.Currency {
			return Account{}, false, errs.E(errs.Conflict, "Account %s (IBAN %s) already exists for customer %s in %s.",
				existing.ID, existing.IBAN, existing.CustomerID, existing.Currency)
		}
		return existing, false, nil
	case !errs.Is(err, errs.NotFound):
		return Account{}, false, err
	}
	if a.CreatedAt, err = clock.UnitTime(ctx, s.clock, a.CustomerID); err != nil {
		return Account{}, false, err
	}
	if err := s.repo.CreateAccount(ctx, a); err != nil {
		return Account{}, false, err
	}
	return a, true, nil
}

// accountOf validates spec and builds the new account.
func (s *Service) accountOf(spec AccountSpec) (Account, error) {
	var v errs.Validation
	cur := strings.ToUpper(strings.TrimSpace(spec.Currency))
	if _, ok := iso.CurrencyOf(cur); !ok {
		v.Add(errs.InvalidValue, "currency", "currency %q is not an ISO 4217 code.", spec.Currency)
	}
	if _, err := uuid.Parse(spec.CustomerID); err != nil || len(spec.CustomerID) != 36 {
		v.Add(errs.InvalidFormat, "customerId", "customer %q is not a uuid.", spec.CustomerID)
	}
	if spec.ID != "" {
		if _, err := uuid.Parse(spec.ID); err != nil || len(spec.ID) != 36 {
			v.Add(errs.InvalidFormat, "id", "account id %q is not a uuid.", spec.ID)
		}
	}
	iban := iso.NormalizeIBAN(spec.IBAN)
	if iban != "" && iso.CheckIBAN(iban) != iso.IBANOK {
		v.Add(errs.ChecksumFailed, "iban", "IBAN %q is not valid.", spec.IBAN)
	}
	if len([]rune(spec.Nickname)) > 140 {
		v.Add(errs.TooLong, "nickname", "nickname must be at most 140 characters long.")
	}
	if err := v.Err(); err != nil {
		return Account{}, err
	}
	id := strings.ToLower(spec.ID)
	if id == "" {
		id = uuid.NewSHA1(accountNamespace, []byte(strings.ToLower(spec.CustomerID)+"|"+cur+"|"+spec.Nickname)).String()
	}
	if iban == "" {
		iban = GenerateIBAN(id, cur)
	}
	return Account{ID: id, CustomerID: strings.ToLower(spec.CustomerID), Type: Connected, Status: AccountActive,
		Currency: cur, IBAN: iban, Nickname: spec.Nickname, Country: iso.IBANCountry(iban)}, nil
}

// GenerateIBAN is the IBAN bankrail gives an account that was opened
// without one: a GB IBAN for GBP, a DE IBAN for any other currency, its
// digits derived from the account id, with valid check digits.
func GenerateIBAN(accountID, currency string) string {
	h := sha256.Sum256([]byte(accountID))
	n := binary.BigEndian.Uint64(h[:8])
	if currency == "GBP" {
		return iso.MakeIBAN("GB", fmt.Sprintf("BRAL%014d", n%1e14))
	}
	return iso.MakeIBAN("DE", fmt.Sprintf("%018d", n%1e18))
}

// Account reads an account that viewerCustomerID may see.
func (s *Service) Account(ctx context.Context, viewerCustomerID, id string) (Account, error) {
	if _, err := identity.Authorize(ctx, identity.AccountRead); err != nil {
		return Account{}, err
	}
	if err := checkID("account", id); err != nil {
		return Account{}, err
	}
	return s.repo.Account(ctx, viewerCustomerID, strings.ToLower(id))
}

// ListAccounts returns one page of the accounts viewerCustomerID may see.
func (s *Service) ListAccounts(ctx context.Context, viewerCustomerID string, f AccountFilter) (paging.Page[Account], error) {
	if _, err := identity.Authorize(ctx, identity.AccountRead); err != nil {
		return paging.Page[Account]{}, err
	}
	f.Page, f.Limit = pageOf(f.Page, f.Limit)
	return s.repo.ListAccounts(ctx, viewerCustomerID, f)
}

// Transaction reads a transaction of an account viewerCustomerID may see.
func (s *Service) Transaction(ctx context.Context, viewerCustomerID, id string) (Transaction, error) {
	if _, err := identity.Authorize(ctx, identity.AccountRead); err != nil {
		return Transaction{}, err
	}
	if err := checkID("transaction", id); err != nil {
		return Transaction{}, err
	}
	return s.repo.Transaction(ctx, viewerCustomerID, strings.ToLower(id))
}

// ListTransactions returns one page of an account's transactions.
func (s *Service) ListTransactions(ctx context.Context, viewerCustomerID, accountID string, f TxFilter) (paging.Page[Transaction], error) {
	if _, err := identity.Authorize(ctx, identity.AccountRead); err != nil {
		return paging.Page[Transaction]{}, err
	}
	if err := checkID("account", accountID); err != nil {
		return paging.Page[Transaction]{}, err
	}
	f.Page, f.Limit = pageOf(f.Page, f.Limit)
	return s.repo.ListTransactions(ctx, viewerCustomerID, strings.ToLower(accountID), f)
}

// ConnectAccount is customerID's ACTIVE Connect account in currency, if any.
func (s *Service) ConnectAccount(ctx context.Context, customerID, currency string) (Account, bool, error) {
	a, err := s.repo.ConnectAccount(ctx, customerID, currency)
	if errs.Is(err, errs.NotFound) {
		return Account{}, false, nil
	}
	return a, err == nil, err
}

func checkID(noun, id string) error {
	if _, err := uuid.Parse(id); err != nil || len(id) != 36 {
		return errs.E(errs.MalformedPathParam, "The %s id %q is not a uuid.", noun, id)
	}
	return nil
}

func pageOf(page, limit int) (int, int) {
	if page < 1 {
		page = 1
	}
	if limit < 1 || limit > MaxPageLimit {
		limit = DefaultPageLimit
	}
	return page, limit
}

// Entries returns every entry that posts to account id, which
// viewerCustomerID must be able to see (else RESOURCE_NOT_FOUND), oldest
// first: what its balance is the sum of (the console's balance over time).
func (s *Service) Entries(ctx context.Context, viewerCustomerID, id string) ([]Entry, error) {
	if _, err := identity.Authorize(ctx, identity.AccountRead); err != nil {
		return nil, err
	}
	if err := checkID("account", id); err != nil {
		return nil, err
	}
	a, err := s.repo.Account(ctx, viewerCustomerID, strings.ToLower(id))
	if err != nil {
		return nil, err
	}
	return s.repo.Entries(ctx, a.ID)
}
