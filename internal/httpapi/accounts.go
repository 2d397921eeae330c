package httpapi

import (
	"net/http"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/iso"
	"github.com/bankrail/bankrail/internal/ledger"
)

// Filters of the Accounts API lists.
var (
	accountFilters     = []string{"currency", "customerId", "page", "limit", "cursor"}
	transactionFilters = []string{"type", "status", "createdAt[gte]", "createdAt[lte]", "page", "limit", "cursor"}
)

// listAccounts serves GET /accounts: the accounts the caller may see,
// newest first, with the paging headers.
func (s *Server) listAccounts(w http.ResponseWriter, r *http.Request) error {
	q, err := listQuery(r, accountFilters)
	if err != nil {
		return err
	}
	lp, err := readPaging(q, ledger.DefaultPageLimit, ledger.MaxPageLimit)
	if err != nil {
		return err
	}
	f := ledger.AccountFilter{Currency: q.Get("currency"), Page: lp.Page, Limit: lp.Limit, After: lp.After}
	if f.Currency != "" {
		if _, ok := iso.CurrencyOf(f.Currency); !ok {
			return errs.E(errs.InvalidQueryParam, "currency %q is not an ISO 4217 currency code.", f.Currency)
		}
	}
	if f.CustomerID, err = uuidParam(q, "customerId"); err != nil {
		return err
	}
	pg, err := s.Accounts.ListAccounts(r.Context(), principal(r).CustomerID, f)
	return writeListOf(w, r, lp, pg, err, accountView)
}

// getAccount serves GET /accounts/{id}.
func (s *Server) getAccount(w http.ResponseWriter, r *http.Request) error {
	a, err := s.Accounts.Account(r.Context(), principal(r).CustomerID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, accountView(a))
	return nil
}

// listAccountTransactions serves GET /accounts/{id}/transactions.
func (s *Server) listAccountTransactions(w http.ResponseWriter, r *http.Request) error {
	q, err := listQuery(r, transactionFilters)
	if err != nil {
		return err
	}
	lp, err := readPaging(q, ledger.DefaultPageLimit, ledger.MaxPageLimit)
	if err != nil {
		return err
	}
	f := ledger.TxFilter{Page: lp.Page, Limit: lp.Limit, After: lp.After}
	if v := q.Get("type"); v != "" {
		if f.Type = ledger.TxType(v); !validOf(f.Type, ledger.TxTypes) {
			return errs.E(errs.InvalidQueryParam, "type %q is not a transaction type (e.g. GATEWAY_PAYMENT, REFUND).", v)
		}
	}
	if v := q.Get("status"); v != "" {
		if f.Status = ledger.TxStatus(v); !validOf(f.Status, ledger.TxStatuses) {
			return errs.E(errs.InvalidQueryParam, "status %q is not a transaction status (e.g. PROCESSING, COMPLETED).", v)
		}
	}
	if f.CreatedFrom, err = timeParam(q, "createdAt[gte]"); err != nil {
		return err
	}
	if f.CreatedTo, err = timeParam(q, "createdAt[lte]"); err != nil {
		return err
	}
	pg, err := s.Accounts.ListTransactions(r.Context(), principal(r).CustomerID, r.PathValue("id"), f)
	return writeListOf(w, r, lp, pg, err, transactionView)
}

// getTransaction serves GET /transactions/{id}.
func (s *Server) getTransaction(w http.ResponseWriter, r *http.Request) error {
	t, err := s.Accounts.Transaction(r.Context(), principal(r).CustomerID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, transactionView(t))
	return nil
}

// validOf reports whether v is one of known.
func validOf[T comparable](v T, known []T) bool {
	for _, k := range known {
		if v == k {
			return true
		}
	}
	return false
}

// accountView is the wire form of an account.
func accountView(a ledger.Account) api.Account {
	name, _ := iso.CountryName(a.Country)
	return api.Account{ID: a.ID, CustomerID: a.CustomerID, Type: api.AccountType(a.Type), Status: api.AccountStatus(a.Status),
		Currency: a.Currency, IBAN: a.IBAN, Nickname: a.Nickname, Country: api.Country{ID: a.Country, Name: name},
		Balance: api.AccountBalance{Available: a.Balance.Available, Pending: a.Balance.Pending}, CreatedAt: a.CreatedAt}
}

// transactionView is the wire form of a transaction.
func transactionView(t ledger.Transaction) api.AccountTransaction {
	out := api.AccountTransaction{ID: t.ID, AccountID: t.AccountID, Type: api.AccountTransactionType(t.Type),
		Operation: api.AccountTransactionOperation(t.Operation), Status: api.AccountTransactionStatus(t.Status),
		Amount: t.Amount.Minor(), Currency: t.Amount.Currency(), Reference: t.Reference,
		Counterparty: api.AccountTransactionCounterparty{Name: t.Counterparty.Name, IBAN: t.Counterparty.IBAN},
		CreatedAt:    t.CreatedAt, UpdatedAt: t.UpdatedAt}
	if t.PaymentID != "" {
		out.PaymentID = &t.PaymentID
	}
	return out
}
