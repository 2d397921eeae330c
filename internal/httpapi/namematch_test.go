package httpapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/payment"
)

type scoreJSON struct {
	InvocationID string  `json:"invocationId"`
	Score        float64 `json:"score"`
}

func TestNameMatchScore(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		shop := env.Token(t, apptest.Merchant)
		score := func(id, query string) *apptest.Response {
			t.Helper()
			return env.Do(t, apptest.Request{Method: "GET", Path: "/payments/" + id + "/name-match-score" + query, Token: shop})
		}
		person := euBody()
		person["payer"] = map[string]any{"firstName": "José", "lastName": "García"}
		p := mustCreate(t, env, shop, person, nil)

		// Until the bank reports the account holder, there is nothing to compare.
		score(p.ID, "").Error(t, http.StatusConflict, "CONFLICT")

		sender := payment.Sender{Name: "J. GARCIA", IBAN: "ES9121000418450200051332"}
		if err := env.App.Payments().RecordSender(context.Background(), p.ID, sender); err != nil {
			t.Fatal(err)
		}
		get := func(query string) scoreJSON {
			t.Helper()
			resp := score(p.ID, query)
			if resp.Status != http.StatusOK {
				t.Fatalf("score%s: %d %s", query, resp.Status, resp.Body)
			}
			var s scoreJSON
			resp.JSON(t, &s)
			return s
		}
		strict, lenient := get(""), get("?allowInitials=true")
		if lenient.Score != 1 || strict.Score >= 0.95 || strict.Score < 0.8 {
			t.Fatalf("scores: without initials %.4f, with %.4f", strict.Score, lenient.Score)
		}
		if strict.InvocationID == lenient.InvocationID || len(strict.InvocationID) != 36 {
			t.Fatalf("invocation ids %q %q", strict.InvocationID, lenient.InvocationID)
		}
		if got := get("?allowInitials=false"); got.Score != strict.Score {
			t.Fatalf("allowInitials=false: %.4f, want %.4f", got.Score, strict.Score)
		}
		// The sender shows on the payment too.
		d := getDetails(t, env, shop, p.ID)
		if d.Sender.Name == nil || *d.Sender.Name != "J. GARCIA" {
			t.Fatalf("sender %+v", d.Sender)
		}

		// Organisations: legal forms do not count.
		org := mustCreate(t, env, shop, ukBody(), nil) // payer Acme Ltd
		if err := env.App.Payments().RecordSender(context.Background(), org.ID, payment.Sender{Name: "ACME LIMITED", SortCode: "404784", AccountNumber: "12345678"}); err != nil {
			t.Fatal(err)
		}
		resp := score(org.ID, "")
		var s scoreJSON
		resp.JSON(t, &s)
		if resp.Status != http.StatusOK || s.Score != 1 {
			t.Fatalf("organisation: %d %s", resp.Status, resp.Body)
		}

		// A payment without a payer name cannot be scored.
		nameless := mustCreate(t, env, shop, with(euBody(), "payer", nil), nil)
		if err := env.App.Payments().RecordSender(context.Background(), nameless.ID, sender); err != nil {
			t.Fatal(err)
		}
		score(nameless.ID, "").Error(t, http.StatusConflict, "CONFLICT")

		score(p.ID, "?allowInitials=maybe").Error(t, http.StatusBadRequest, "INVALID_QUERY_PARAM")
		score("nope", "").Error(t, http.StatusBadRequest, "MALFORMED_PATH_PARAM")
		other := env.Do(t, apptest.Request{Method: "GET", Path: "/payments/" + p.ID + "/name-match-score", Token: env.Token(t, apptest.OtherMerch)})
		other.Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
	})
}
