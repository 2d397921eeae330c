package httpapi_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/pain"
	"github.com/bankrail/bankrail/internal/pain/xsdcheck"
)

var xmlBody = map[string]string{"Content-Type": "application/xml"}

// The transfer files are the operator's: every tenant, an ADMIN included,
// gets 403 on each route (a tenant is authenticated and the routes are
// documented; what it lacks is the role), and the operator gets no
// merchant data. The operator lists the production file a payout went
// into, downloads it (valid against the XSD) and posts the bank's pain.002,
// which rejects the payout: REJECTED, its funds back. The same answer
// again changes nothing; a body that is not a pain.002 is 422, one that
// is not XML 415.
func TestTransferFilesAreForOperators(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		for _, l := range []apptest.Login{apptest.PSPAdmin, apptest.Merchant, apptest.Viewer, apptest.OtherMerch} {
			token := env.Token(t, l)
			for _, req := range []apptest.Request{{Method: "GET", Path: "/transfer-files"},
				{Method: "GET", Path: "/transfer-files/01a21d31-1819-7946-891f-b39ba9f283b4"},
				{Method: "POST", Path: "/transfer-status", Body: "<Document/>", Header: xmlBody}} {
				req.Token = token
				env.Do(t, req).Error(t, http.StatusForbidden, "ACCESS_DENIED")
			}
		}
		ops := env.Token(t, apptest.Operator)
		env.Do(t, apptest.Request{Method: "GET", Path: "/payments", Token: ops}).Error(t, http.StatusForbidden, "ACCESS_DENIED")

		a, _, err := env.App.Accounts().EnsureAccount(context.Background(), ledger.AccountSpec{CustomerID: apptest.ShopID, Currency: "EUR", Nickname: "files"})
		if err != nil {
			t.Fatal(err)
		}
		credit(t, env, a, 10_000, ledger.TypeManualCredit, env.Clock.Now())
		p := mustPayout(t, env, env.Token(t, apptest.Merchant), payoutBody(a.ID, 1234, "Jane Doe"), nil)
		if _, err := env.App.Transfers().ExportAll(context.Background()); err != nil {
			t.Fatal(err)
		}
		var files []struct {
			ID, MsgID, Direction string
			Count                int
			Links                struct{ Download struct{ Href string } } `json:"_links"`
		}
		env.Do(t, apptest.Request{Method: "GET", Path: "/transfer-files", Token: ops}).JSON(t, &files)
		if len(files) != 1 || files[0].Direction != "OUT" || files[0].Count != 1 || files[0].Links.Download.Href != "/transfer-files/"+files[0].ID {
			t.Fatalf("files %+v", files)
		}
		file := env.Do(t, apptest.Request{Method: "GET", Path: files[0].Links.Download.Href, Token: ops})
		if file.Status != 200 || file.Header.Get("Content-Type") != "application/xml" || !strings.Contains(file.Header.Get("Content-Disposition"), files[0].MsgID+".xml") {
			t.Fatalf("download: %d %v", file.Status, file.Header)
		}
		xsdcheck.Validate(t, "pain.001.001.10.xsd", file.Body)

		var buf bytes.Buffer
		err = pain.WriteStatus(&buf, pain.Answer{ID: "BANK-REJECT-1", CreatedAt: time.Now(), OriginalMsgID: files[0].MsgID,
			Group: pain.Status{Code: "RJCT", Reason: "AC04: account closed"}})
		if err != nil {
			t.Fatal(err)
		}
		var sum struct {
			Rejected  int
			Duplicate bool
		}
		resp := env.Do(t, apptest.Request{Method: "POST", Path: "/transfer-status", Token: ops, Body: buf.Bytes(), Header: xmlBody})
		if resp.Status != http.StatusCreated {
			t.Fatalf("import: %d %s", resp.Status, resp.Body)
		}
		if resp.JSON(t, &sum); sum.Rejected != 1 || sum.Duplicate {
			t.Fatalf("summary %s", resp.Body)
		}
		var got payoutJSON
		env.Do(t, apptest.Request{Method: "GET", Path: "/payouts/" + p.ID, Token: env.Token(t, apptest.Merchant), Header: v1}).JSON(t, &got)
		if got.Status != "REJECTED" {
			t.Fatalf("payout after the bank's rejection: %s", got.Status)
		}
		resp = env.Do(t, apptest.Request{Method: "POST", Path: "/transfer-status", Token: ops, Body: buf.Bytes(), Header: xmlBody})
		if resp.JSON(t, &sum); resp.Status != http.StatusCreated || !sum.Duplicate {
			t.Fatalf("import again: %d %s", resp.Status, resp.Body)
		}
		env.Do(t, apptest.Request{Method: "POST", Path: "/transfer-status", Token: ops, Body: file.Body, Header: xmlBody}).
			Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		env.Do(t, apptest.Request{Method: "POST", Path: "/transfer-status", Token: ops, Body: map[string]string{"a": "b"}}).
			Error(t, http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE")
	}, apptest.Production)
}
