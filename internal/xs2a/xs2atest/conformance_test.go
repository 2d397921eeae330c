package xs2atest

import (
	"net/http"
	"testing"
)

// The official document loads in kin-openapi and validates (examples
// aside), once per test binary.
func TestDocumentLoads(t *testing.T) {
	t.Parallel()
	d, err := Document()
	if err != nil {
		t.Fatal(err)
	}
	if d.Paths.Find("/v1/{payment-service}/{payment-product}") == nil {
		t.Fatal("the payment initiation is not in the document")
	}
}

// The checks can fail: a request or an answer that breaks the document is
// reported.
func TestMismatchesAreFound(t *testing.T) {
	t.Parallel()
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("X-Request-ID", "99391c7e-ad88-49ec-a2ad-99ddcb1f7721")
	h.Set("PSU-IP-Address", "192.0.2.1")
	body := []byte(`{"debtorAccount":{"iban":"DE89370400440532013000"},"instructedAmount":{"currency":"EUR","amount":"10.50"},` +
		`"creditorAccount":{"iban":"DE02120300000000202051"},"creditorName":"Shop"}`)
	answer := http.Header{}
	answer.Set("Content-Type", "application/json")
	answer.Set("X-Request-ID", "99391c7e-ad88-49ec-a2ad-99ddcb1f7721")
	answer.Set("ASPSP-SCA-Approach", "REDIRECT")
	answer.Set("Location", "https://bank.example/v1/payments/sepa-credit-transfers/1")
	good := Exchange{Method: http.MethodPost, Path: "/v1/payments/sepa-credit-transfers", RequestHeader: h, RequestBody: body,
		Status: http.StatusCreated, Header: answer,
		Body: []byte(`{"transactionStatus":"RCVD","paymentId":"1","_links":{"scaRedirect":{"href":"https://bank.example/sca"}}}`)}
	if errs := Mismatches(good, true); len(errs) != 0 {
		t.Fatalf("a good exchange: %v", errs)
	}
	badRequest := good
	badRequest.RequestHeader = h.Clone()
	badRequest.RequestHeader.Set("X-Request-ID", "not-a-uuid")
	badAnswer := good
	badAnswer.Body = []byte(`{"transactionStatus":"DONE","_links":{}}`)
	unknown := good
	unknown.Path = "/v1/nothing"
	for name, e := range map[string]Exchange{"request": badRequest, "answer": badAnswer, "operation": unknown} {
		if errs := Mismatches(e, true); len(errs) == 0 {
			t.Errorf("a bad %s passes", name)
		}
	}
}
