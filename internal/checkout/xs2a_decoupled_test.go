package checkout_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/xs2a"
	"github.com/bankrail/bankrail/internal/xs2a/aspsp"
	"github.com/bankrail/bankrail/internal/xs2a/xs2atest"
)

// appPage is the address of the mock bank's "app" in the psuMessage the
// waiting page shows.
var appPage = regexp.MustCompile(`https?://[^\s"<]+/xs2a/[0-9a-f-]+/sca/[A-Za-z0-9_-]+`)

// decoupledPayment is a payment at the sandbox's decoupled bank whose
// payer has arrived at the waiting page: its id, the waiting page's
// address and the app page's.
func decoupledPayment(t *testing.T, env *apptest.Env, pr *payer) (id, wait, app string) {
	t.Helper()
	body := with(apptest.EUPayment(), "openBankingEU", map[string]any{"institutionId": aspsp.DecoupledBank})
	p := env.CreatePayment(t, env.Token(t, apptest.Merchant), "api", body, nil)
	arrive := pr.get(p.DirectURL())
	arrive.must(t, http.StatusSeeOther)
	if !strings.Contains(arrive.Location, "/checkout/"+p.ID+"/bank-app?") {
		t.Fatalf("the payer of a decoupled bank goes to %s, not to the waiting page", arrive.Location)
	}
	page := pr.get(arrive.Location)
	page.must(t, http.StatusOK, "Confirm the payment in your bank", "Saimaa Pankki", `http-equiv="refresh"`, "Please confirm the payment in the Saimaa Pankki app")
	if st := statusOf(t, env, p.ID); st != payment.StatusBankRedirect {
		t.Fatalf("a payment waiting for the app: %s", st)
	}
	app = appPage.FindString(page.Body)
	if app == "" {
		t.Fatalf("the waiting page names no app page:\n%s", page.Body)
	}
	return p.ID, arrive.Location, app
}

// answerInApp answers a decoupled payment in the mock bank's app.
func answerInApp(t *testing.T, pr *payer, app, outcome string) {
	t.Helper()
	pr.get(app).must(t, http.StatusOK, outcome)
	pr.post(app, url.Values{"outcome": {outcome}, "holder": {"Aino Virtanen"}}).must(t, http.StatusOK, "Your answer is recorded")
}

// A payment at a bank that takes the decoupled SCA approach: the payer
// waits on bankrail's page, which follows the answer given in the bank's
// app (approved, refused, cancelled); the poll job applies the answer for
// a payer who closed the page; a payer who never answers ends
// ABANDONED_BY_USER, like one who never came back from a redirect. Both
// engines.
func TestDecoupledSCA(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		pr := newPayer(t, env)
		for _, tt := range []struct {
			outcome string
			want    payment.Status
		}{
			{"COMPLETED", payment.StatusCompleted},
			{"REFUSED_BY_BANK", payment.StatusRefusedByBank},
			{"CANCELLED_BY_USER", payment.StatusCancelledByUser},
		} {
			id, wait, app := decoupledPayment(t, env, pr)
			pr.get(wait).must(t, http.StatusOK, "Confirm the payment in your bank") // still waiting: the bank says RCVD
			if pg := pr.get(strings.Replace(wait, "token=", "token=x", 1)); pg.Status != http.StatusNotFound {
				t.Fatalf("the waiting page with a wrong token: %d", pg.Status)
			}
			answerInApp(t, pr, app, tt.outcome)
			if pg := pr.get(wait); pg.Status != http.StatusSeeOther {
				t.Fatalf("%s: the waiting page after the answer: %d\n%s", tt.outcome, pg.Status, pg.Body)
			}
			if st := statusOf(t, env, id); st != tt.want {
				t.Errorf("%s in the app: %s, want %s", tt.outcome, st, tt.want)
			}
			if tt.want == payment.StatusCompleted {
				p, err := env.App.Store().Payments().GetByID(t.Context(), id)
				if err != nil || p.Sender == nil || p.Sender.Name != "Aino Virtanen" {
					t.Errorf("the holder the bank reports is not the sender: %+v %v", p.Sender, err)
				}
			}
		}

		closed, _, app := decoupledPayment(t, env, pr)
		silent, silentWait, _ := decoupledPayment(t, env, pr)
		answerInApp(t, pr, app, "COMPLETED")
		env.Clock.Advance(xs2a.PollFirst)
		apptest.Eventually(t, "the poll job's reading of the app's answer", func() bool {
			return statusOf(t, env, closed) == payment.StatusCompleted
		})
		if st := statusOf(t, env, silent); st != payment.StatusBankRedirect {
			t.Fatalf("a payer who has not answered yet: %s", st)
		}
		env.Clock.Advance(payment.AbandonAfter)
		apptest.Eventually(t, "the end of a payment never answered in the app", func() bool {
			return statusOf(t, env, silent) == payment.StatusAbandonedByUser
		})
		if pg, _ := pr.follow(silentWait); strings.Contains(pg.Body, "Confirm the payment in your bank") {
			t.Errorf("the waiting page of an abandoned payment still waits:\n%s", pg.Body)
		}
	}, apptest.ServedAtPublicURL)
}

// decoupledExchanges are decoupled exchanges for the conformance test: a
// payment of bankrail's checkout approved in the app, and a developer's
// own client asking for decoupled SCA (TPP-Redirect-Preferred: false, no
// TPP-Redirect-URI) and reading the SCA status at _links.scaStatus before
// and after the answer.
func decoupledExchanges(t *testing.T, env *apptest.Env) {
	t.Helper()
	pr := newPayer(t, env)
	id, wait, app := decoupledPayment(t, env, pr)
	answerInApp(t, pr, app, "COMPLETED")
	pr.follow(wait)
	if st := statusOf(t, env, id); st != payment.StatusCompleted {
		t.Fatalf("a decoupled payment approved in the app: %s", st)
	}

	send := func(method, address string, h map[string]string, body string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, address, bytes.NewReader([]byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Request-ID", uuid.NewString())
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		var buf bytes.Buffer
		if _, err := buf.ReadFrom(resp.Body); err != nil {
			t.Fatal(err)
		}
		return resp, buf.Bytes()
	}
	resp, body := send(http.MethodPost, env.URL+"/xs2a/"+apptest.BankDE+"/v1/payments/sepa-credit-transfers",
		map[string]string{"Content-Type": "application/json", "PSU-IP-Address": "192.0.2.10", "TPP-Redirect-Preferred": "false"},
		`{"instructedAmount":{"currency":"EUR","amount":"7.00"},"creditorAccount":{"iban":"`+apptest.IBANDE+`"},"creditorName":"Test Shop GmbH"}`)
	var in xs2a.InitiationResponse
	if err := json.Unmarshal(body, &in); err != nil || resp.StatusCode != http.StatusCreated || in.Links.SCAStatus == nil ||
		in.Links.SCARedirect != nil || in.PSUMessage == "" || resp.Header.Get("ASPSP-SCA-Approach") != xs2a.SCADecoupled {
		t.Fatalf("a decoupled initiation: %d %s %s %v", resp.StatusCode, resp.Header.Get("ASPSP-SCA-Approach"), body, err)
	}
	scaStatus := func() string {
		t.Helper()
		resp, body := send(http.MethodGet, in.Links.SCAStatus.Href, nil, "")
		var st xs2a.SCAStatusResponse
		if err := json.Unmarshal(body, &st); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("the SCA status: %d %s %v", resp.StatusCode, body, err)
		}
		return st.SCAStatus
	}
	if st := scaStatus(); st != "received" {
		t.Errorf("the SCA status before the answer: %s", st)
	}
	answerInApp(t, pr, appPage.FindString(in.PSUMessage), "REFUSED_BY_BANK")
	if st := scaStatus(); st != "failed" {
		t.Errorf("the SCA status after a refusal: %s", st)
	}
}

// Every decoupled exchange above matches the official document.
func decoupledSeen(t *testing.T, exchanges []xs2atest.Exchange) {
	t.Helper()
	seen := map[string]bool{}
	for _, e := range exchanges {
		if e.Method == http.MethodPost && e.Header.Get("ASPSP-SCA-Approach") == xs2a.SCADecoupled {
			seen["initiation"] = true
		}
		if strings.Contains(e.Path, "/authorisations/") && e.Status == http.StatusOK {
			seen["scaStatus"] = true
		}
	}
	if !seen["initiation"] || !seen["scaStatus"] {
		t.Errorf("the decoupled exchanges were not all validated: %v", seen)
	}
}
