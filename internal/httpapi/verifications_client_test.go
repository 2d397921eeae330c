package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/auth"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/money"
	"github.com/bankrail/bankrail/internal/payout"
	"github.com/bankrail/bankrail/internal/store"
)

// A decision taken with a token that names an API client and no user
// records the API client as its performer (type API_CLIENT, its client id
// as id and name); one taken with a user's token records the user (USER).
// The token's principal is put in the request as the authentication
// middleware does: bankrail's /oauth issues user tokens only (password
// and refresh_token grants; client_credentials is refused), so a token
// without a user cannot be obtained through the API today, and the
// handler, the payout service and the store are exercised here from the
// principal on, on both engines.
func TestDecisionPerformerFromTheToken(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		ctx := adminContext()
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		st, err := store.Open(ctx, store.Options{DatabaseURL: db.DatabaseURL, SQLitePath: db.SQLitePath}, log)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		if err := st.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
		const shop = "70000000-0000-4000-8000-000000000002"
		if err := st.CreateCustomer(ctx, identity.Customer{ID: shop, Name: "Shop", CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
		if err := st.CreateApplication(ctx, identity.Application{ID: "70000000-0000-4000-8000-0000000000e1", CustomerID: shop,
			ClientID: "shop-client", ClientSecretHash: "unused", NotificationSecret: "unused", CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
		clk := clock.NewFake(at)
		acct, _, err := ledger.NewService(st.Ledger(), clk).EnsureAccount(ctx, ledger.AccountSpec{CustomerID: shop, Currency: "EUR"})
		if err != nil {
			t.Fatal(err)
		}
		funds := ledger.Transaction{ID: ids.New(), AccountID: acct.ID, CustomerID: shop, Type: ledger.TypeManualCredit,
			Operation: ledger.Incoming, Status: ledger.TxCompleted, Amount: money.Must(money.New(10_000, "EUR")), CreatedAt: at, UpdatedAt: at}
		e, err := ledger.Open(funds, ids.New())
		if err != nil {
			t.Fatal(err)
		}
		if err := st.InTx(ctx, func(tx *store.Tx) error { return tx.Ledger().Record(ctx, funds, e) }); err != nil {
			t.Fatal(err)
		}
		svc := payout.NewService(st.Payouts(), store.Transactor[payout.Repos](st),
			idempotency.NewGuard(st.IdempotencyKeys(), clk, idempotency.Config{TTL: time.Hour}), clk, true, log)
		s := &Server{Deps: Deps{Payouts: svc}}
		held := func() payout.Payout {
			t.Helper()
			var p payout.Payout
			_, err := svc.Create(ctx, payout.Input{ViewerCustomerID: shop, ClientID: "shop-client", AccountID: acct.ID, Amount: 100,
				Currency: "EUR", PaymentReference: "Invoice 42", Scenario: payout.ScenarioNoMatch,
				Beneficiary: payout.Beneficiary{Name: "Jane Doe", IBAN: "DE89370400440532013000"}},
				func(created payout.Payout) ([]byte, error) { p = created; return []byte("{}"), nil })
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		decide := func(handler handlerFunc, p payout.Payout, who auth.Principal) api.AccountHolderVerification {
			t.Helper()
			req := httptest.NewRequest(http.MethodPost, "/account-holder-verifications/"+p.VerificationID+"/approve", nil)
			req.SetPathValue("id", p.VerificationID)
			req = req.WithContext(auth.WithPrincipal(req.Context(), who))
			rec := httptest.NewRecorder()
			if err := handler(rec, req); err != nil {
				t.Fatal(err)
			}
			var v api.AccountHolderVerification
			if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil || rec.Code != http.StatusOK {
				t.Fatalf("%d %s (%v)", rec.Code, rec.Body, err)
			}
			return v
		}
		client := auth.Principal{CustomerID: shop, ClientID: "shop-client", Role: identity.RoleMerchant}
		user := auth.Principal{UserID: "70000000-0000-4000-8000-0000000000f1", Username: "merchant@shop.test", CustomerID: shop,
			ClientID: "shop-client", Role: identity.RoleMerchant}
		for _, c := range []struct {
			name    string
			handler handlerFunc
			who     auth.Principal
			want    payout.Performer
			typ     payout.DecisionType
		}{
			{"API client approves", s.approveVerification, client, payout.Performer{ID: "shop-client", Name: "shop-client", Type: payout.APIClient}, payout.Approved},
			{"API client rejects", s.rejectVerification, client, payout.Performer{ID: "shop-client", Name: "shop-client", Type: payout.APIClient}, payout.RejectedByOne},
			{"user approves", s.approveVerification, user, payout.Performer{ID: user.UserID, Name: user.Username, Type: payout.User}, payout.Approved},
		} {
			p := held()
			v := decide(c.handler, p, c.who)
			d := v.Decision
			if d == nil || d.Performer.ID != c.want.ID || d.Performer.Name != c.want.Name || string(d.Performer.Type) != string(c.want.Type) ||
				string(d.Type) != string(c.typ) || d.Subject != "ACCOUNT_HOLDER_VERIFICATION" {
				t.Fatalf("%s: decision %+v", c.name, d)
			}
			stored, err := svc.Verification(ctx, shop, p.VerificationID)
			if err != nil || stored.Decision == nil || stored.Decision.Performer != c.want || stored.Decision.Type != c.typ {
				t.Fatalf("%s: stored %+v (%v)", c.name, stored.Decision, err)
			}
		}
	})
}
