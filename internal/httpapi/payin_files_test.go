package httpapi_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/pain/xsdcheck"
)

// payinFiles lists the camt.054 credit advices (PAYIN-...) the customer
// of token sees at GET /sandbox/bank-files?direction=IN.
func payinFiles(t *testing.T, env *apptest.Env, token string) []bankFileJSON {
	t.Helper()
	var files []bankFileJSON
	env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/bank-files?direction=IN&limit=100", Token: token, Header: v1}).JSON(t, &files)
	var out []bankFileJSON
	for _, f := range files {
		if strings.HasPrefix(f.MsgID, "PAYIN-") {
			out = append(out, f)
		}
	}
	return out
}

// POST /payin's funds arrive as the mock bank's camt.054 credit advice,
// kept as an IN bank file of the account's customer: listed at GET
// /sandbox/bank-files, downloadable, valid against camt.054.001.08, and
// the same XML the importer booked (the credit is on the account). Another
// customer neither lists it nor downloads it (404); two customers with the
// same externalPaymentId each get their own file, and so does the same
// customer's second account; a repeat keeps no second file.
func TestSandboxPayinAdvicesAreBankFiles(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		mine := openAccount(t, env, apptest.ShopID, "EUR", "payin files")
		second := openAccount(t, env, apptest.ShopID, "EUR", "payin files 2")
		theirs := openAccount(t, env, apptest.OtherShopID, "EUR", "payin files")
		token, other := env.Token(t, apptest.Merchant), env.Token(t, apptest.OtherMerch)
		for _, p := range []struct {
			token, iban string
			amount      int64
		}{{token, mine.IBAN, 1234}, {other, theirs.IBAN, 777}, {token, second.IBAN, 55}, {token, mine.IBAN, 1234}} {
			if resp := payin(t, env, p.token, "same-ext-1", "no such order", p.amount, "EUR", p.iban); resp.Status != http.StatusAccepted {
				t.Fatalf("payin to %s: %d %s", p.iban, resp.Status, resp.Body)
			}
		}
		if a := accountBalance(t, env, token, mine.ID); a.Balance.Available != 1234 {
			t.Fatalf("the account after the payin and its repeat: %+v", a.Balance)
		}

		files := payinFiles(t, env, token)
		if len(files) != 2 {
			t.Fatalf("the merchant's payin advices: %+v", files)
		}
		byIBAN := map[string]bankFileJSON{}
		for _, f := range files {
			if f.Message != "camt.054.001.08" || f.Direction != "IN" || f.Count != 1 || f.Currency != "EUR" || f.Links.Download.Method != "GET" {
				t.Fatalf("a payin advice listed as %+v", f)
			}
			resp := env.Do(t, apptest.Request{Method: "GET", Path: f.Links.Download.Href, Token: token})
			if resp.Status != http.StatusOK || resp.Header.Get("Content-Type") != "application/xml" {
				t.Fatalf("download %s: %d %v", f.Links.Download.Href, resp.Status, resp.Header)
			}
			xsdcheck.Validate(t, "camt.054.001.08.xsd", resp.Body)
			body := string(resp.Body)
			if !strings.Contains(body, "<MsgId>"+f.MsgID+"</MsgId>") || !strings.Contains(body, "<CdtDbtInd>CRDT</CdtDbtInd>") ||
				!strings.Contains(body, "<AcctSvcrRef>same-ext-1</AcctSvcrRef>") || !strings.Contains(body, "Anna Müller") {
				t.Fatalf("the advice %s:\n%s", f.MsgID, body)
			}
			for _, a := range []string{mine.IBAN, second.IBAN} {
				if strings.Contains(body, "<IBAN>"+a+"</IBAN>") {
					byIBAN[a] = f
				}
			}
		}
		if f := byIBAN[mine.IBAN]; f.MsgID != "PAYIN-same-ext-1" || f.Amount != 1234 {
			t.Fatalf("the first account's advice: %+v", f)
		}
		if f := byIBAN[second.IBAN]; f.MsgID == "PAYIN-same-ext-1" || f.Amount != 55 {
			t.Fatalf("the second account's advice (the same externalPaymentId): %+v", f)
		}

		theirFiles := payinFiles(t, env, other)
		if len(theirFiles) != 1 || theirFiles[0].MsgID != "PAYIN-same-ext-1" || theirFiles[0].Amount != 777 {
			t.Fatalf("the other customer's payin advices: %+v", theirFiles)
		}
		for _, f := range files {
			if resp := env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/bank-files/" + f.ID, Token: other}); resp.Status != http.StatusNotFound {
				t.Fatalf("another customer downloads %s: %d", f.ID, resp.Status)
			}
		}
		resp := env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/bank-files/" + theirFiles[0].ID, Token: other})
		xsdcheck.Validate(t, "camt.054.001.08.xsd", resp.Body)
		if !strings.Contains(string(resp.Body), "<IBAN>"+theirs.IBAN+"</IBAN>") || !strings.Contains(string(resp.Body), `<Amt Ccy="EUR">7.77</Amt>`) {
			t.Fatalf("the other customer's advice:\n%s", resp.Body)
		}
	})
}

// Concurrent POST /payin of the same funds (one externalPaymentId, one
// account) book them once and keep one advice: the one whose file and
// credit commit first; the others are repeats (202, nothing changed) or
// 409 (the funds were being booked meanwhile). Run it many times:
// go test ./internal/httpapi -run ConcurrentPayinsKeepOneAdvice -count=20 -race.
func TestConcurrentPayinsKeepOneAdvice(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := openAccount(t, env, apptest.ShopID, "EUR", "concurrent payins")
		token := env.Token(t, apptest.Merchant)
		const n = 8
		status := make([]int, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				status[i] = payin(t, env, token, "race-ext", "no such order", 4200, "EUR", acct.IBAN).Status
			})
		}
		close(start)
		wg.Wait()
		t.Logf("answers: %v", status)
		accepted := 0
		for _, s := range status {
			switch s {
			case http.StatusAccepted:
				accepted++
			case http.StatusConflict:
			default:
				t.Fatalf("the concurrent payins answered %v", status)
			}
		}
		if accepted == 0 {
			t.Fatalf("no payin was accepted: %v", status)
		}
		if a := accountBalance(t, env, token, acct.ID); a.Balance.Available != 4200 {
			t.Fatalf("the account after %d concurrent payins of the same funds: %+v", n, a.Balance)
		}
		if files := payinFiles(t, env, token); len(files) != 1 || files[0].MsgID != "PAYIN-race-ext" || files[0].Amount != 4200 {
			t.Fatalf("the advices of the same funds paid in %d times at once: %+v", n, files)
		}
	})
}
