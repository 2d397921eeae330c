package checkout_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/checkout"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/notification"
)

// remoteBank is a connector to a bank of another site: the payer
// authorises at https://bank.example, which sends them back to
// Authorisation.ReturnURL with result=ok or result=no.
type remoteBank struct{}

func (remoteBank) Start(_ context.Context, a bank.Authorisation) (string, error) {
	if a.Bank.ID == "" || a.Token == "" {
		return "", errors.New("authorisation without bank or token")
	}
	return "https://bank.example/consent?" + url.Values{"back": {a.ReturnURL}, "bic": {a.Bank.BIC}}.Encode(), nil
}

func (remoteBank) Answer(_ context.Context, _ bank.Authorisation, params url.Values) (bank.Answer, error) {
	switch params.Get("result") {
	case "ok":
		return bank.Answer{Outcome: "COMPLETED", Holder: "ANNA MUELLER"}, nil
	case "no":
		return bank.Answer{Outcome: "REFUSED_BY_BANK"}, nil
	}
	return bank.Answer{}, errors.New("unknown result")
}

// The pages reach a bank through whatever connector the map gives, in
// production: a connected bank's page is the connector's, the payer comes
// back to /checkout/{id}/return and the connector's answer moves the
// payment; a bank without a connector in the same map ends the payment.
func TestConnectorOfAnotherBank(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		cs := bank.NewConnectors()
		de, _ := bank.Default().Get(apptest.BankDE)
		if err := cs.Connect(remoteBank{}, de); err != nil {
			t.Fatal(err)
		}
		var h http.Handler
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
		t.Cleanup(srv.Close)
		h = checkout.New(checkout.Deps{Payments: env.App.Payments(), Clock: env.App.Clock(), PublicURL: srv.URL,
			Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Connectors: cs,
			Secrets: func(_ context.Context, clientID string) (string, error) {
				return apptest.NotificationSecrets[clientID], nil
			}})
		pages := *env
		pages.URL = srv.URL
		pr := newPayer(t, &pages)
		token := env.Token(t, apptest.Merchant)
		create := func(bankID string) (apptest.Created, string) {
			body := with(apptest.EUPayment(), "communication", map[string]any{
				"notifications": map[string]any{"url": publicNotifyURL},
				"return":        map[string]any{"urls": map[string]any{"unified": map[string]any{"url": "https://shop.example/back"}}}})
			body["openBankingEU"] = map[string]any{"type": "GOODS", "institutionId": bankID}
			p := env.CreatePayment(t, token, "hosted", body, nil)
			return p, tokenOf(t, p.DirectURL())
		}

		p, tok := create(apptest.BankDE)
		toBank := pr.post("/checkout/"+p.ID+"/confirm", url.Values{"token": {tok}, "bank": {apptest.BankDE}})
		at, _ := url.Parse(toBank.Location)
		if toBank.Status != http.StatusSeeOther || at == nil || at.Host != "bank.example" || at.Query().Get("bic") != de.BIC {
			t.Fatalf("confirm: %d to %q, want the connector's bank page", toBank.Status, toBank.Location)
		}
		back := at.Query().Get("back")
		if want := srv.URL + "/checkout/" + p.ID + "/return?token=" + tok; back != want {
			t.Fatalf("return address %q, want %q", back, want)
		}
		if st := statusOf(t, env, p.ID); st != payment.StatusBankRedirect {
			t.Fatalf("at the bank: %s", st)
		}
		if again := pr.get("/checkout/" + p.ID + "?token=" + tok); again.Location != toBank.Location { // the payer's link leads to the bank again
			t.Fatalf("the link while at the bank: %d to %q", again.Status, again.Location)
		}
		pr.get(back+"&result=maybe").must(t, http.StatusInternalServerError) // an answer the connector cannot read
		done := pr.get(back + "&result=ok")
		u, _ := url.Parse(done.Location)
		if done.Status != http.StatusSeeOther || u == nil || u.Host != "shop.example" || u.Path != "/back" {
			t.Fatalf("back from the bank: %d to %q", done.Status, done.Location)
		}
		r, err := notification.VerifyReturn(apptest.NotificationSecrets[apptest.Merchant.ClientID], u.Query(), time.Minute, env.App.Clock().Now())
		if err != nil || r.Status != notification.StatusCompleted || r.DetailedStatus != "COMPLETED" {
			t.Fatalf("signed outcome %+v: %v", r, err)
		}
		if got, want := gatewayNotes(t, env, token, p.ID), []string{"COMPLETED/COMPLETED", "PENDING/BANK_REDIRECT"}; !slices.Equal(got, want) {
			t.Fatalf("notifications %v, want %v", got, want)
		}
		if again := pr.get(back + "&result=no"); !strings.HasPrefix(again.Location, "https://shop.example/back?") || statusOf(t, env, p.ID) != payment.StatusCompleted {
			t.Fatalf("a second answer: %d to %q, status %s", again.Status, again.Location, statusOf(t, env, p.ID))
		}

		// The same map has no connector for Donau Bank.
		q, qtok := create(apptest.BankAT)
		final, _ := pr.follow(pr.post("/checkout/"+q.ID+"/confirm", url.Values{"token": {qtok}, "bank": {apptest.BankAT}}).Location)
		final.must(t, http.StatusOK, "Your bank is not available", "Donau Bank cannot be reached")
		if st := statusOf(t, env, q.ID); st != payment.UnreachableBankStatus {
			t.Fatalf("unconnected bank: %s", st)
		}
	}, apptest.Production)
}
