package dashboard_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/pain"
)

// plainJar keeps Secure cookies over plain HTTP too: the production
// console's __Host- cookie, which a browser keeps only over HTTPS, for a
// test server that speaks HTTP.
type plainJar struct{ *cookiejar.Jar }

// SetCookies implements http.CookieJar.
func (j plainJar) SetCookies(u *url.URL, cookies []*http.Cookie) {
	plain := make([]*http.Cookie, 0, len(cookies))
	for _, c := range cookies {
		cc := *c
		cc.Secure = false
		plain = append(plain, &cc)
	}
	j.Jar.SetCookies(u, plain)
}

// signInAt signs l in on a console of env (in either mode) and checks the
// page the sign-in lands on.
func signInAt(t *testing.T, env *apptest.Env, l apptest.Login, landing string) *console {
	t.Helper()
	c := newConsole(t, env)
	jar, _ := cookiejar.New(nil)
	c.http.Jar = plainJar{jar}
	c.open("/dashboard/sign-in")
	p := c.post("/dashboard/sign-in", url.Values{"username": {l.Username}, "password": {l.Password}})
	if p.Status != http.StatusSeeOther || p.Location != landing {
		t.Fatalf("sign in as %s: %d to %q, want %q\n%s", l.Username, p.Status, p.Location, landing, p.Body)
	}
	c.open(landing) // the session's token
	return c
}

// upload sends a multipart form with the last page's token (unless
// fields sets csrf, possibly empty: then none is sent) and the file
// content under the field "file" (none when name is empty).
func (c *console) upload(path string, fields url.Values, name string, content []byte, header map[string]string) page {
	c.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if _, ok := fields["csrf"]; !ok {
		if err := mw.WriteField("csrf", c.csrf); err != nil {
			c.t.Fatal(err)
		}
	}
	for k, vs := range fields {
		for _, v := range vs {
			if k == "csrf" && v == "" {
				continue
			}
			if err := mw.WriteField(k, v); err != nil {
				c.t.Fatal(err)
			}
		}
	}
	if name != "" {
		fw, err := mw.CreateFormFile("file", name)
		if err != nil {
			c.t.Fatal(err)
		}
		if _, err := fw.Write(content); err != nil {
			c.t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		c.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, c.env.URL+path, &body)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return c.do(req)
}

// filedPayout credits 100.00 EUR to acct, creates a payout of amount
// from it and exports it into a production pain.001 file; it returns the
// payout's id.
func filedPayout(t *testing.T, env *apptest.Env, acct ledger.Account, amount int64) string {
	t.Helper()
	credit(t, env, acct, 10_000, env.Clock.Now())
	resp := env.Do(t, apptest.Request{Method: "POST", Path: "/payouts", Token: env.Token(t, apptest.Merchant), Header: v1,
		Body: map[string]any{"accountId": acct.ID, "amount": amount, "currency": "EUR", "paymentReference": "Invoice 42",
			"beneficiary": map[string]any{"name": "Jane Doe", "accountIdentifiers": map[string]any{"iban": "DE89370400440532013000"}}}})
	if resp.Status != http.StatusCreated {
		t.Fatalf("create payout: %d %s", resp.Status, resp.Body)
	}
	var p struct{ ID string }
	resp.JSON(t, &p)
	waitFor(t, "the payout's transfer file", func() bool {
		files, err := env.App.Transfers().ExportAll(context.Background())
		return err == nil && len(files) > 0
	})
	return p.ID
}

// rejection is the bank's pain.002 rejecting the whole file msgID.
func rejection(t *testing.T, msgID string) []byte {
	t.Helper()
	var buf bytes.Buffer
	err := pain.WriteStatus(&buf, pain.Answer{ID: "BANK-REJECT-1", CreatedAt: time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC),
		OriginalMsgID: msgID, Group: pain.Status{Code: "RJCT", Reason: "AC04: account closed"}})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fileLink finds a transfer file's download link and its MsgId on the
// transfer files page.
var fileLink = regexp.MustCompile(`<code>([^<]+)</code><br><span class="hint">pain\.001[^<]*</span></td>\s*<td>OUT</td>[\s\S]*?href="(/dashboard/transfer-files/[0-9a-f-]{36}/download)"`)

// exceptionForm is the resolution form's address of the open exception
// whose panel holds what.
func exceptionForm(t *testing.T, c *console, what string) string {
	t.Helper()
	body := c.open("/dashboard/reconciliation-exceptions").Body
	for _, panel := range regexp.MustCompile(`(?s)<article class="panel exception".*?</article>`).FindAllString(body, -1) {
		if m := resolveAction.FindStringSubmatch(panel); m != nil && strings.Contains(panel, what) {
			return m[1]
		}
	}
	t.Fatalf("no open exception with %q:\n%s", what, mainOf(body))
	return ""
}

// resolveAction is the address of an exception's resolution form.
var resolveAction = regexp.MustCompile(`action="(/dashboard/reconciliation-exceptions/[0-9a-f-]{36}/resolve)"`)
