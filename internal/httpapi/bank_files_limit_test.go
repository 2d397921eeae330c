package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/camt/camttest"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/statement"
)

// A statement file or a pain.002 report over the configured limit
// (config.MaxStatementBytes, MaxStatusBytes) is 413 PAYLOAD_TOO_LARGE in
// the documented error shape (the OpenAPI check of every response) and
// writes nothing; a file within the limit is read as before.
func TestBankFilesOverTheLimitAre413(t *testing.T) {
	t.Parallel()
	const limit = 8 << 10
	small := func(c *config.Config) { c.MaxStatementBytes, c.MaxStatusBytes = limit, limit }
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		operator := env.Token(t, apptest.Operator)
		doc := camttest.String(53, 8, "LIMIT-1", camttest.Stmt{IBAN: "GB82WEST12345698765432",
			Entries: []camttest.Entry{{AcctSvcrRef: "L1", Minor: 100, Credit: true, Txs: []camttest.Tx{{Ustrd: []string{"within"}}}}}})
		if len(doc) >= limit {
			t.Fatalf("the small statement is %d bytes, not under the limit %d", len(doc), limit)
		}
		big := strings.Replace(doc, "?>", "?><!--"+strings.Repeat("x", limit)+"-->", 1)
		e := postStatement(t, env, operator, big).Error(t, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
		if !strings.Contains(e.Message, "8192 bytes") {
			t.Fatalf("the 413's message does not give the limit: %q", e.Message)
		}
		var list struct{ Statements []statement.Summary }
		env.Do(t, apptest.Request{Method: "GET", Path: "/statements", Token: operator, Header: v1}).JSON(t, &list)
		if len(list.Statements) != 0 {
			t.Fatalf("a file over the limit was kept: %+v", list.Statements)
		}
		if resp := postStatement(t, env, operator, doc); resp.Status != http.StatusCreated {
			t.Fatalf("a statement within the limit: %d %s", resp.Status, resp.Body)
		}

		report := `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.11"><!--` + strings.Repeat("y", limit) + `--></Document>`
		e = env.Do(t, apptest.Request{Method: "POST", Path: "/transfer-status", Token: operator, Body: report, Header: xmlBody}).
			Error(t, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
		if !strings.Contains(e.Message, "8192 bytes") {
			t.Fatalf("the 413's message does not give the limit: %q", e.Message)
		}
		// Within the limit the report is read: not a pain.002 it names, 422.
		env.Do(t, apptest.Request{Method: "POST", Path: "/transfer-status", Token: operator, Body: "<Document/>", Header: xmlBody}).
			Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
	}, small)
}
