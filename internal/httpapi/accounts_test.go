package httpapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/money"
	"github.com/bankrail/bankrail/internal/store"
)

// accountJSON is the part of an account the tests read.
type accountJSON struct {
	ID, CustomerID, Type, Status, Currency, IBAN, Nickname string
	Country                                                struct{ ID, Name string }
	Balance                                                struct{ Available, Pending int64 }
	CreatedAt                                              string
}

// transactionJSON is an account transaction as the tests read it.
type transactionJSON struct {
	ID, AccountID, Type, Operation, Status, Currency, Reference string
	Amount                                                      int64
	PaymentID                                                   *string
	Counterparty                                                struct{ Name, IBAN string }
}

// openAccount opens an account of customer through the accounts service.
func openAccount(t testing.TB, env *apptest.Env, customer, currency, nickname string) ledger.Account {
	t.Helper()
	a, created, err := env.App.Accounts().EnsureAccount(context.Background(),
		ledger.AccountSpec{CustomerID: customer, Currency: currency, Nickname: nickname})
	if err != nil || !created {
		t.Fatalf("open account: %v (created %v)", err, created)
	}
	return a
}

// credit records completed incoming funds on a, as the Connect
// reconciliation does.
func credit(t testing.TB, env *apptest.Env, a ledger.Account, amount int64, typ ledger.TxType, at time.Time) ledger.Transaction {
	t.Helper()
	tx := ledger.Transaction{ID: uuid.NewString(), AccountID: a.ID, CustomerID: a.CustomerID, Type: typ, Operation: ledger.Incoming,
		Status: ledger.TxCompleted, Amount: money.Must(money.New(amount, a.Currency)), Reference: "REF " + typ.String(),
		Counterparty: ledger.Counterparty{Name: "Anna Payer", IBAN: "DE89370400440532013000"}, CreatedAt: at, UpdatedAt: at}
	e, err := ledger.Open(tx, uuid.NewString())
	if err != nil {
		t.Fatal(err)
	}
	if err := env.App.Store().InTx(context.Background(), func(s *store.Tx) error { return s.Ledger().Record(context.Background(), tx, e) }); err != nil {
		t.Fatal(err)
	}
	return tx
}

func TestAccountsAPI(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		eur := openAccount(t, env, apptest.ShopID, "EUR", "main")
		env.Clock.Advance(time.Second)
		gbp := openAccount(t, env, apptest.ShopID, "GBP", "uk")
		theirs := openAccount(t, env, apptest.OtherShopID, "EUR", "main")
		first := credit(t, env, eur, 1050, ledger.TypeGatewayPayment, apptest.Epoch)
		second := credit(t, env, eur, 200, ledger.TypeManualCredit, apptest.Epoch.Add(time.Minute))
		merchant, psp, viewer, other := env.Token(t, apptest.Merchant), env.Token(t, apptest.PSPAdmin),
			env.Token(t, apptest.Viewer), env.Token(t, apptest.OtherMerch)

		resp := env.Do(t, apptest.Request{Method: "GET", Path: "/accounts", Token: merchant, Header: v1})
		var list []accountJSON
		resp.JSON(t, &list)
		if resp.Status != http.StatusOK || len(list) != 2 || list[0].ID != gbp.ID || list[1].ID != eur.ID ||
			resp.Header.Get("total-items") != "2" || resp.Header.Get("page-count") != "1" {
			t.Fatalf("merchant's accounts: %d %s %v", resp.Status, resp.Body, resp.Header)
		}
		got := list[1]
		if got.Balance.Available != 1250 || got.Balance.Pending != 0 || got.IBAN != eur.IBAN || got.Country.ID != "DE" ||
			got.Country.Name == "" || got.Type != "CONNECTED_ACCOUNT" || got.Status != "ACTIVE" || got.CustomerID != apptest.ShopID {
			t.Fatalf("EUR account %+v", got)
		}
		if list[0].Country.ID != "GB" || list[0].Currency != "GBP" {
			t.Fatalf("GBP account %+v", list[0])
		}
		// The PSP sees its merchant's accounts, and narrows by customer and currency.
		resp = env.Do(t, apptest.Request{Method: "GET", Path: "/accounts?customerId=" + apptest.ShopID + "&currency=EUR&limit=1", Token: psp, Header: v1})
		resp.JSON(t, &list)
		if resp.Status != http.StatusOK || len(list) != 1 || list[0].ID != eur.ID || resp.Header.Get("limit") != "1" {
			t.Fatalf("PSP's list: %d %s", resp.Status, resp.Body)
		}
		// A read-only user reads.
		resp = env.Do(t, apptest.Request{Method: "GET", Path: "/accounts/" + eur.ID, Token: viewer, Header: v1})
		if resp.Status != http.StatusOK {
			t.Fatalf("viewer's read: %d %s", resp.Status, resp.Body)
		}
		// Transactions, newest first, filtered.
		resp = env.Do(t, apptest.Request{Method: "GET", Path: "/accounts/" + eur.ID + "/transactions", Token: psp, Header: v1})
		var txs []transactionJSON
		resp.JSON(t, &txs)
		if resp.Status != http.StatusOK || len(txs) != 2 || txs[0].ID != second.ID || txs[1].ID != first.ID ||
			txs[1].Amount != 1050 || txs[1].Operation != "INCOMING" || txs[1].Status != "COMPLETED" ||
			txs[1].Counterparty.Name != "Anna Payer" || txs[1].Currency != "EUR" || txs[1].PaymentID != nil {
			t.Fatalf("transactions: %d %s", resp.Status, resp.Body)
		}
		resp = env.Do(t, apptest.Request{Method: "GET", Path: "/accounts/" + eur.ID + "/transactions?type=MANUAL_CREDIT&status=COMPLETED&createdAt[gte]=" +
			apptest.Epoch.Add(time.Second).Format(time.RFC3339), Token: merchant, Header: v1})
		resp.JSON(t, &txs)
		if resp.Status != http.StatusOK || len(txs) != 1 || txs[0].ID != second.ID || resp.Header.Get("total-items") != "1" {
			t.Fatalf("filtered transactions: %d %s", resp.Status, resp.Body)
		}
		resp = env.Do(t, apptest.Request{Method: "GET", Path: "/transactions/" + first.ID, Token: merchant, Header: v1})
		var one transactionJSON
		resp.JSON(t, &one)
		if resp.Status != http.StatusOK || one.ID != first.ID || one.AccountID != eur.ID || one.Type != "GATEWAY_PAYMENT" {
			t.Fatalf("one transaction: %d %s", resp.Status, resp.Body)
		}

		// Another customer: 404 for each resource, and only its own account in lists.
		for _, path := range []string{"/accounts/" + eur.ID, "/accounts/" + eur.ID + "/transactions", "/transactions/" + first.ID} {
			env.Do(t, apptest.Request{Method: "GET", Path: path, Token: other, Header: v1}).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
		}
		resp = env.Do(t, apptest.Request{Method: "GET", Path: "/accounts", Token: other, Header: v1})
		resp.JSON(t, &list)
		if len(list) != 1 || list[0].ID != theirs.ID {
			t.Fatalf("other's list: %s", resp.Body)
		}
		resp = env.Do(t, apptest.Request{Method: "GET", Path: "/accounts?customerId=" + apptest.ShopID, Token: other, Header: v1})
		resp.JSON(t, &list)
		if resp.Status != http.StatusOK || len(list) != 0 {
			t.Fatalf("other narrowing to the shop: %d %s", resp.Status, resp.Body)
		}
	})
}

func TestAccountsAPIRefusesBadInput(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	a := openAccount(t, env, apptest.ShopID, "EUR", "main")
	token := env.Token(t, apptest.Merchant)
	for _, tc := range []struct {
		name, path string
		header     map[string]string
		token      string
		status     int
		code       string
	}{
		{"account id not a uuid", "/accounts/nope", v1, token, 400, "MALFORMED_PATH_PARAM"},
		{"transaction id not a uuid", "/transactions/nope", v1, token, 400, "MALFORMED_PATH_PARAM"},
		{"transactions of a bad id", "/accounts/nope/transactions", v1, token, 400, "MALFORMED_PATH_PARAM"},
		{"missing account", "/accounts/" + uuid.NewString(), v1, token, 404, "RESOURCE_NOT_FOUND"},
		{"missing transaction", "/transactions/" + uuid.NewString(), v1, token, 404, "RESOURCE_NOT_FOUND"},
		{"unknown currency", "/accounts?currency=XXX", v1, token, 400, "INVALID_QUERY_PARAM"},
		{"empty filter", "/accounts?currency=", v1, token, 400, "INVALID_QUERY_PARAM"},
		{"customer not a uuid", "/accounts?customerId=x", v1, token, 400, "INVALID_QUERY_PARAM"},
		{"limit too high", "/accounts?limit=101", v1, token, 400, "INVALID_QUERY_PARAM"},
		{"unknown type", "/accounts/" + a.ID + "/transactions?type=GIFT", v1, token, 400, "INVALID_QUERY_PARAM"},
		{"unknown status", "/accounts/" + a.ID + "/transactions?status=DONE", v1, token, 400, "INVALID_QUERY_PARAM"},
		{"bad time", "/accounts/" + a.ID + "/transactions?createdAt[lte]=yesterday", v1, token, 400, "INVALID_QUERY_PARAM"},
		{"no version", "/accounts", nil, token, 400, "MISSING_HTTP_HEADER"},
		{"wrong version", "/accounts", map[string]string{"X-Service-Api-Version": "2"}, token, 400, "INVALID_HTTP_HEADER"},
		{"no token", "/accounts", v1, "", 401, "UNAUTHORISED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env.Do(t, apptest.Request{Method: "GET", Path: tc.path, Token: tc.token, Header: tc.header}).Error(t, tc.status, tc.code)
		})
	}
}

// accountSpec is an account of customer in currency with a derived id and IBAN.
func accountSpec(customer, currency string) ledger.AccountSpec {
	return ledger.AccountSpec{CustomerID: customer, Currency: currency, Nickname: "main"}
}

// fundedAccount opens a EUR Connect account of the demo shop, named
// nickname, holding amount (a MANUAL_CREDIT booked now): the start of the
// payout, refund and advice tests.
func fundedAccount(t testing.TB, env *apptest.Env, nickname string, amount int64) ledger.Account {
	t.Helper()
	acct := openAccount(t, env, apptest.ShopID, "EUR", nickname)
	credit(t, env, acct, amount, ledger.TypeManualCredit, env.Clock.Now())
	return acct
}
