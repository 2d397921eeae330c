package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

type bankJSON struct {
	ID             string   `json:"id"`
	Name           string   `json:"name"`
	BIC            string   `json:"bic"`
	Logo           string   `json:"logo"`
	Icon           string   `json:"icon"`
	PaymentSystems []string `json:"paymentSystems"`
	Country        struct{ ID, Name string }
}

func TestBanks(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	token := env.Token(t, apptest.Viewer) // payments:read is enough
	list := func(query string) []bankJSON {
		t.Helper()
		resp := env.Do(t, apptest.Request{Method: "GET", Path: "/banks" + query, Token: token})
		if resp.Status != http.StatusOK {
			t.Fatalf("GET /banks%s: %d %s", query, resp.Status, resp.Body)
		}
		var out []bankJSON
		resp.JSON(t, &out)
		return out
	}
	all := list("")
	countries := map[string]int{}
	for _, b := range all {
		countries[b.Country.ID]++
	}
	for _, c := range []string{"GB", "DE", "FR", "ES", "IT", "NL", "IE", "BE", "AT", "PT", "FI"} {
		if countries[c] < 3 {
			t.Errorf("%s: %d banks", c, countries[c])
		}
	}
	de := list("?country=DE")
	if len(de) != 3 || de[0].Country.Name != "Germany" {
		t.Fatalf("DE: %+v", de)
	}
	for _, b := range list("?paymentSystem=OPEN_BANKING_UK") {
		if b.Country.ID != "GB" || len(b.PaymentSystems) != 1 || b.PaymentSystems[0] != "OPEN_BANKING_UK" {
			t.Fatalf("UK system lists %+v", b)
		}
	}
	if got := list("?country=GB&paymentSystem=OPEN_BANKING_EU"); len(got) != 0 {
		t.Fatalf("GB + EU: %d banks", len(got))
	}
	for _, q := range []string{"?country=XX", "?country=UK", "?country=de", "?paymentSystem=SWIFT"} {
		env.Do(t, apptest.Request{Method: "GET", Path: "/banks" + q, Token: token}).Error(t, http.StatusBadRequest, "INVALID_QUERY_PARAM")
	}
	resp := env.Do(t, apptest.Request{Method: "GET", Path: "/banks/" + bankGB, Token: token})
	var one bankJSON
	resp.JSON(t, &one)
	if resp.Status != http.StatusOK || one.Name != "Thames Mutual Bank" || one.BIC != "TMUBGB2L" {
		t.Fatalf("GET /banks/%s: %d %s", bankGB, resp.Status, resp.Body)
	}
	env.Do(t, apptest.Request{Method: "GET", Path: "/banks/00000000-0000-4000-8000-000000000000", Token: token}).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
	// Logos and icons are served by bankrail, without a token.
	for _, img := range []string{one.Logo, one.Icon} {
		path := strings.TrimPrefix(img, "http://bankrail.test")
		resp := env.Do(t, apptest.Request{Method: "GET", Path: path})
		if resp.Status != http.StatusOK || resp.Header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(string(resp.Body), "<svg ") {
			t.Fatalf("GET %s: %d %s", path, resp.Status, resp.Header.Get("Content-Type"))
		}
	}
	env.Do(t, apptest.Request{Method: "GET", Path: "/banks/00000000-0000-4000-8000-000000000000/logo.svg"}).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
	env.Do(t, apptest.Request{Method: "GET", Path: "/banks/thames", Token: token}).Error(t, http.StatusBadRequest, "MALFORMED_PATH_PARAM")
	env.Do(t, apptest.Request{Method: "GET", Path: "/banks"}).Error(t, http.StatusUnauthorized, "UNAUTHORISED")
}
