package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// FuzzCreatePayment sends arbitrary bodies, channels and idempotency keys
// through the whole stack (decoder, validator, store on SQLite): no input
// may panic or give a 500, and every answer must match the OpenAPI document.
// The target has state (a database), so its coverage is not deterministic:
// run it with a bounded minimisation, or each new input is minimised for a
// minute:
//
//	go test -run='^$' -fuzz='^FuzzCreatePayment$' -fuzztime=60s -fuzzminimizetime=100x ./internal/httpapi
func FuzzCreatePayment(f *testing.F) {
	for _, b := range []map[string]any{euBody(), ukBody()} {
		body, _ := json.Marshal(b)
		f.Add(body, uint8(0), "")
		f.Add(body, uint8(1), "key-1")
	}
	for _, s := range []string{``, `null`, `[]`, `"x"`, `{"amount":1e400}`, `{"amount":"1"}`, `{"payer":[]}`,
		`{"currency":"EUR","amount":1,"paymentSystem":"OPEN_BANKING_EU","openBankingEU":{},"beneficiary":{"name":"b","accountIdentifiers":{"iban":"DE89370400440532013000"}}}`,
		`{"displayInfo":[{"key":1}]}`, `{"a":1}{"b":2}`, "{\"currency\":\"\xff\"}"} {
		f.Add([]byte(s), uint8(2), "k")
	}
	env := apptest.New(f)
	token := env.Token(f, apptest.Merchant)
	channels := []string{"hosted", "api", "HOSTED", "web"}
	f.Fuzz(func(t *testing.T, body []byte, channel uint8, key string) {
		headers := map[string]string{channelHeader: channels[int(channel)%len(channels)]}
		if key = strings.Map(func(r rune) rune {
			if r < 0x21 || r > 0x7e {
				return -1
			}
			return r
		}, key); key != "" {
			headers["Idempotency-Key"] = key
		}
		req := apptest.Request{Method: "POST", Path: paymentsPath, Token: token, Body: body, Header: paymentHeaders(headers)}
		if ch := headers[channelHeader]; ch != "hosted" && ch != "api" {
			req.OffSpec = "the channel in another case (tolerated) or unknown (refused)"
		}
		resp := env.Do(t, req)
		if resp.Status >= 500 {
			t.Fatalf("%d for body %q: %s", resp.Status, body, resp.Body)
		}
	})
}
