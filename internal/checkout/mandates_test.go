package checkout_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/apptest"
)

// createMandate makes a VRP mandate through the API and returns its id and
// the payer's address.
func createMandate(t *testing.T, env *apptest.Env, token string) (id, address string) {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "POST", Path: "/mandates", Token: token, Header: map[string]string{"X-Service-Api-Version": "1"},
		Body: map[string]any{"type": "VRP", "payer": map[string]any{"name": "Bo Payer", "accountIdentifiers": map[string]any{"iban": "GB33BUKB20201555555555"}}}})
	var m struct {
		ID               string `json:"id"`
		AuthorisationURL string `json:"authorisationUrl"`
	}
	resp.JSON(t, &m)
	if resp.Status != http.StatusCreated {
		t.Fatalf("create mandate: %d %s", resp.Status, resp.Body)
	}
	return m.ID, m.AuthorisationURL
}

// The mock bank's mandate and amendment pages refuse what the payment pages
// refuse: a form from another site, a wrong token, an unknown answer; an
// answered mandate shows its state (a second click changes nothing); the
// pages do not exist in production.
func TestMandatePageRefusals(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		id, address := createMandate(t, env, token)
		tok := tokenOf(t, address)
		pr := newPayer(t, env)
		path := "/mock-banks/mandates/" + id

		pr.get(address).must(t, http.StatusOK, "Authorise a payment agreement", "GB33BUKB20201555555555", "no end", `value="approve"`)
		req, _ := http.NewRequest(http.MethodPost, env.URL+path, strings.NewReader(url.Values{"token": {tok}, "answer": {"approve"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "https://evil.example")
		pr.do(req).must(t, http.StatusForbidden)
		pr.post(path, url.Values{"token": {"nope"}, "answer": {"approve"}}).must(t, http.StatusNotFound, "This mandate link is not valid.")
		pr.get(path+"?token=nope").must(t, http.StatusNotFound)
		pr.get("/mock-banks/mandates/not-a-uuid?token="+tok).must(t, http.StatusNotFound)
		pr.post(path, url.Values{"token": {tok}, "answer": {"maybe"}}).must(t, http.StatusBadRequest)
		pr.get("/mock-banks/mandates/").must(t, http.StatusNotFound, "This page does not exist")

		pr.post(path, url.Values{"token": {tok}, "answer": {"decline"}}).must(t, http.StatusOK, "Agreement declined")
		pr.post(path, url.Values{"token": {tok}, "answer": {"approve"}}).must(t, http.StatusOK, "Agreement declined") // the back button
		resp := env.Do(t, apptest.Request{Method: "GET", Path: "/mandates/" + id, Token: token, Header: map[string]string{"X-Service-Api-Version": "1"}})
		var m struct{ Status string }
		_ = json.Unmarshal(resp.Body, &m)
		if m.Status != "DECLINED" {
			t.Fatalf("mandate after the page: %s", resp.Body)
		}
	}, apptest.ServedAtPublicURL)
}

// An amendment's page after 5 days says it expired, and its answer is
// refused; the mandate keeps its terms.
func TestAmendmentPageAfterAbandonment(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.ServedAtPublicURL)
	token := env.Token(t, apptest.Merchant)
	v1 := map[string]string{"X-Service-Api-Version": "1"}
	id, address := createMandate(t, env, token)
	pr := newPayer(t, env)
	pr.post("/mock-banks/mandates/"+id, url.Values{"token": {tokenOf(t, address)}, "answer": {"approve"}}).must(t, http.StatusOK, "Agreement authorised")
	resp := env.Do(t, apptest.Request{Method: "POST", Path: "/mandates/" + id + "/amendments", Token: token, Header: v1,
		Body: map[string]any{"validity": map[string]any{"to": "2030-01-01 00:00:00"}}})
	var a struct {
		ID          string `json:"id"`
		ApprovalURL string `json:"-"` // the Link header's rel="approval"
	}
	resp.JSON(t, &a)
	a.ApprovalURL = api.LinkTarget(resp.Header, "approval")
	pr.get(a.ApprovalURL).must(t, http.StatusOK, "Approve a change to your agreement", "<s>no end</s>", "2030-01-01 00:00:00")
	env.Clock.Advance(5 * 24 * time.Hour)
	pr.post("/mock-banks/amendments/"+a.ID, url.Values{"token": {tokenOf(t, a.ApprovalURL)}, "answer": {"approve"}}).
		must(t, http.StatusOK, "This request has expired")
	pr.get(a.ApprovalURL).must(t, http.StatusOK, "This request has expired", "no end")

	prod := apptest.New(t, apptest.Production, apptest.ServedAtPublicURL)
	newPayer(t, prod).get(strings.Replace(a.ApprovalURL, env.URL, prod.URL, 1)).must(t, http.StatusNotFound)
}
