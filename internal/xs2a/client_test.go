package xs2a_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/bankrail/bankrail/internal/xs2a"
)

// The client takes an initiation answer it can authorise: a redirect
// (_links.scaRedirect), a decoupled one (_links.scaStatus and a
// psuMessage), a rejection; it refuses one that needs an explicit start
// of the authorisation (_links.startAuthorisation only) or has no link,
// and asks for decoupled SCA with TPP-Redirect-Preferred: false.
func TestInitiateSCAApproaches(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, answer      string
		redirectPreferred bool
		ok                bool
	}{
		{"redirect", `{"transactionStatus":"RCVD","paymentId":"p1","_links":{"scaRedirect":{"href":"https://bank.example/sca"}}}`, true, true},
		{"decoupled", `{"transactionStatus":"RCVD","paymentId":"p1","psuMessage":"Confirm in the app","_links":{"scaStatus":{"href":"/v1/payments/sepa-credit-transfers/p1/authorisations/a1"}}}`, false, true},
		{"rejected", `{"transactionStatus":"RJCT","paymentId":"p1","_links":{}}`, false, true},
		{"explicit start", `{"transactionStatus":"RCVD","paymentId":"p1","_links":{"startAuthorisation":{"href":"/v1/payments/sepa-credit-transfers/p1/authorisations"}}}`, false, false},
		{"no link", `{"transactionStatus":"RCVD","paymentId":"p1","_links":{}}`, true, false},
		{"no payment id", `{"transactionStatus":"RCVD","_links":{"scaStatus":{"href":"/x"}}}`, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var preferred string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				preferred = r.Header.Get("TPP-Redirect-Preferred")
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusCreated)
				_, _ = w.Write([]byte(tt.answer))
			}))
			t.Cleanup(srv.Close)
			c := xs2a.Client{BaseURL: srv.URL, HTTP: srv.Client()}
			resp, err := c.Initiate(t.Context(), xs2a.ProductSEPA, xs2a.Headers{RequestID: "r", PSUIPAddress: "192.0.2.1",
				RedirectPreferred: tt.redirectPreferred}, xs2a.PaymentInitiation{})
			if (err == nil) != tt.ok {
				t.Fatalf("%s: %+v %v, want ok %v", tt.name, resp, err, tt.ok)
			}
			if want := map[bool]string{true: "true", false: "false"}[tt.redirectPreferred]; preferred != want {
				t.Errorf("TPP-Redirect-Preferred %q, want %q", preferred, want)
			}
			if tt.name == "decoupled" && (resp.PSUMessage != "Confirm in the app" || resp.Links.SCAStatus == nil) {
				t.Errorf("the decoupled answer is not kept: %+v", resp)
			}
		})
	}
}
