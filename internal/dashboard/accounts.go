package dashboard

import (
	"net/http"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/paging"
)

// accountRow is a Connect account with its balance.
type accountRow struct {
	ID, Name, IBAN, Currency, Status, Customer string
	Available, Pending, Held                   string
}

// accountsData fills the accounts page.
type accountsData struct {
	Rows  []accountRow
	Pager pagerView
}

// accountRowOf is an account as the pages show it.
func accountRowOf(a ledger.Account, customer string) accountRow {
	name := a.Nickname
	if name == "" {
		name = a.Currency + " account"
	}
	return accountRow{ID: a.ID, Name: name, IBAN: a.IBAN, Currency: a.Currency, Status: string(a.Status), Customer: customer,
		Available: formatAmount(a.Balance.Available, a.Currency), Pending: formatAmount(a.Balance.Pending, a.Currency),
		Held: formatAmount(a.Balance.Held, a.Currency)}
}

// accounts is GET /dashboard/accounts: the Connect accounts the viewer
// may see, with their balances.
func (h *accountPages) accounts(w http.ResponseWriter, q *req) error {
	page := pageParam(q.Request)
	items, total, err := paging.Unpack(h.Accounts.ListAccounts(q.ctx(), q.viewer(), ledger.AccountFilter{Page: page, Limit: listLimit}))
	if err != nil {
		return err
	}
	names := h.namer(q)
	var d accountsData
	for _, a := range items {
		d.Rows = append(d.Rows, accountRowOf(a, names(a.CustomerID)))
	}
	d.Pager = pager(q.URL, page, listLimit, total)
	h.show(w, q, http.StatusOK, "accounts", "Accounts", "Accounts", d, "", nil)
	return nil
}

// txRow is a transaction of an account.
type txRow struct {
	ID, Type, Operation, Status, Amount, Reference, Counterparty, PaymentID string
	CreatedAt                                                               time.Time
}

// accountData fills an account's page.
type accountData struct {
	accountRow
	Chart *lineView
	Rows  []txRow
	Pager pagerView
}

// account is GET /dashboard/accounts/{id}: the balance, its history as a
// chart, and the transactions, newest first.
func (h *accountPages) account(w http.ResponseWriter, q *req) error {
	a, err := h.Accounts.Account(q.ctx(), q.viewer(), q.PathValue("id"))
	if err != nil {
		return err
	}
	page := pageParam(q.Request)
	items, total, err := paging.Unpack(h.Accounts.ListTransactions(q.ctx(), q.viewer(), a.ID, ledger.TxFilter{Page: page, Limit: listLimit}))
	if err != nil {
		return err
	}
	d := accountData{accountRow: accountRowOf(a, h.namer(q)(a.CustomerID)), Pager: pager(q.URL, page, listLimit, total)}
	for _, t := range items {
		d.Rows = append(d.Rows, txRow{ID: t.ID, Type: string(t.Type), Operation: string(t.Operation), Status: string(t.Status),
			Amount: formatAmount(t.Amount.Minor(), a.Currency), Reference: t.Reference, Counterparty: t.Counterparty.Name,
			PaymentID: t.PaymentID, CreatedAt: t.CreatedAt})
	}
	entries, err := h.Accounts.Entries(q.ctx(), q.viewer(), a.ID)
	if err != nil {
		return err
	}
	now, err := clock.For(q.ctx(), h.Clock, a.CustomerID)
	if err != nil {
		return err
	}
	d.Chart = balanceChart(a, entries, now)
	h.show(w, q, http.StatusOK, "account", d.Name, "Accounts", d, "", nil)
	return nil
}
