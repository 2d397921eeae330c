package httpapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
)

// stamped parses a timestamp of a response, failing the test on a bad one.
func stamped(t *testing.T, what, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("%s: %q: %v", what, s, err)
	}
	return at
}

// Funds through POST /payin are stamped on the clock of the tenant that
// advanced it: RECEIVED (the event behind statusUpdates), payment_received
// and the account transaction all carry the tenant's time, never the base
// time, which is before the payment was created; so does an account opened
// after the advance (issue 25, item 5).
func TestPayinIsOnTheTenantsClock(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := openAccount(t, env, apptest.ShopID, "EUR", "Shop EUR")
		moved := advanceClock(t, env, env.Token(t, apptest.Merchant), 20*24*3600)
		tenantNow := moved.Now
		token := env.Token(t, apptest.Merchant) // twenty days later: a fresh token
		rc := apptest.NewReceiver(t)

		// 2050 is NOT_RECEIVED at once: expected funds that have not come.
		p := mustCreate(t, env, token, expectedBody(rc, 2050, "Order T"), map[string]string{scenarioHeader: "COMPLETED"})
		if n := connectNotes(t, rc, p.ID, 1)[0]; n.Status != "NOT_RECEIVED" {
			t.Fatalf("before the funds: %+v", n)
		}
		created := stamped(t, "createdAt", getDetails(t, env, token, p.ID).CreatedAt)
		if !created.Equal(tenantNow) {
			t.Fatalf("created at %s, the tenant's clock says %s", created, tenantNow)
		}

		if resp := payin(t, env, token, "ext-t", "Order T", 2050, "EUR", acct.IBAN); resp.Status != http.StatusAccepted {
			t.Fatalf("payin: %d %s", resp.Status, resp.Body)
		}

		d := getDetails(t, env, token, p.ID)
		last := d.StatusUpdates[len(d.StatusUpdates)-1]
		if last.NewStatus != "RECEIVED" {
			t.Fatalf("last status update %+v", last)
		}
		if at := stamped(t, "RECEIVED", last.CreatedAt); !at.Equal(tenantNow) || at.Before(created) {
			t.Errorf("RECEIVED at %s: the payment was created at %s, the tenant's clock says %s", at, created, tenantNow)
		}
		if n := connectNotes(t, rc, p.ID, 2)[1]; n.Status != "RECEIVED" || !n.Timestamp.Equal(tenantNow) {
			t.Errorf("payment_received %s at %s, the tenant's clock says %s", n.Status, n.Timestamp, tenantNow)
		}

		var txs []struct{ Type, CreatedAt, UpdatedAt string }
		env.Do(t, apptest.Request{Method: "GET", Path: "/accounts/" + acct.ID + "/transactions", Token: token, Header: v1}).JSON(t, &txs)
		if len(txs) != 1 || txs[0].Type != "GATEWAY_PAYMENT" {
			t.Fatalf("transactions %+v", txs)
		}
		for what, s := range map[string]string{"createdAt": txs[0].CreatedAt, "updatedAt": txs[0].UpdatedAt} {
			if at := stamped(t, what, s); !at.Equal(tenantNow) {
				t.Errorf("the account transaction's %s is %s, the tenant's clock says %s", what, at, tenantNow)
			}
		}

		// An account opened now is opened on the tenant's clock too.
		later := openAccount(t, env, apptest.ShopID, "GBP", "Shop GBP")
		if at := stamped(t, "the account's createdAt", accountBalance(t, env, token, later.ID).CreatedAt); !at.Equal(tenantNow) {
			t.Errorf("an account opened after the advance was created at %s, the tenant's clock says %s", at, tenantNow)
		}

		// Funds that match nothing (a MANUAL_CREDIT) too.
		if resp := payin(t, env, token, "ext-stray", "no such order", 99, "EUR", acct.IBAN); resp.Status != http.StatusAccepted {
			t.Fatalf("stray: %d %s", resp.Status, resp.Body)
		}
		env.Do(t, apptest.Request{Method: "GET", Path: "/accounts/" + acct.ID + "/transactions", Token: token, Header: v1}).JSON(t, &txs)
		if len(txs) != 2 || txs[0].Type != "MANUAL_CREDIT" {
			t.Fatalf("transactions %+v", txs)
		}
		if at := stamped(t, "MANUAL_CREDIT", txs[0].CreatedAt); !at.Equal(tenantNow) {
			t.Errorf("the MANUAL_CREDIT is at %s, the tenant's clock says %s", at, tenantNow)
		}
	})
}
