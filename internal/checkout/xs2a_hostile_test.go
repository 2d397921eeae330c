package checkout_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/xs2a"
)

// hostileBank is a NextGenPSD2 bank that misbehaves on purpose, by the
// payment's amount in cents: its initiation or its status hangs past the
// connector's timeout, fails, is not JSON, or says something the standard
// does not; or it answers well and the payer never comes back.
type hostileBank struct {
	mu         sync.Mutex
	requestIDs map[string][]string // amount -> X-Request-ID of each POST
}

// hostile behaviours by amount (minor units).
const (
	postHangs      = 101
	post500        = 102
	postMalformed  = 103
	statusUnknown  = 104
	status503      = 105
	statusHangs    = 106
	statusGarbage  = 107
	neverBackACSC  = 108
	neverBackRCVD  = 109
	pendingForever = 110
)

func (h *hostileBank) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		var body xs2a.PaymentInitiation
		_ = json.NewDecoder(r.Body).Decode(&body)
		cents, _ := xs2a.ParseAmount(body.InstructedAmount)
		h.mu.Lock()
		h.requestIDs[fmt.Sprint(cents)] = append(h.requestIDs[fmt.Sprint(cents)], r.Header.Get("X-Request-ID"))
		h.mu.Unlock()
		switch cents {
		case postHangs:
			<-r.Context().Done() // until the connector gives up
			return
		case post500:
			w.WriteHeader(http.StatusInternalServerError)
			return
		case postMalformed:
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"transactionStatus": "RCVD", "paymentId": `))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(xs2a.InitiationResponse{TransactionStatus: "RCVD", PaymentID: fmt.Sprint(cents),
			Links: xs2a.Links{SCARedirect: &xs2a.Href{Href: "https://sca.hostile.example/" + fmt.Sprint(cents)}}})
		return
	}
	id := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/v1/payments/sepa-credit-transfers/"), "/status")
	status := map[string]string{fmt.Sprint(statusUnknown): "XXXX", fmt.Sprint(neverBackACSC): "ACSC", fmt.Sprint(neverBackRCVD): "RCVD",
		fmt.Sprint(pendingForever): "PDNG"}[id]
	switch id {
	case fmt.Sprint(status503):
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	case fmt.Sprint(statusHangs):
		<-r.Context().Done()
		return
	case fmt.Sprint(statusGarbage):
		_, _ = w.Write([]byte("<html>maintenance</html>"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(xs2a.StatusResponse{TransactionStatus: status})
}

// A bank that hangs past the timeout, answers 5xx, malformed JSON or an
// unknown status, or whose payer never comes back: every payment reaches a
// defined status and the payer a page that says what happened; a retried
// initiation carries the same X-Request-ID.
func TestHostileNextGenPSD2Bank(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		bank := &hostileBank{requestIDs: map[string][]string{}}
		srv := httptest.NewServer(bank)
		t.Cleanup(srv.Close)
		dir := filepath.Join(t.TempDir(), "banks.yaml")
		if err := os.WriteFile(dir, []byte("banks:\n  - id: "+apptest.BankDE+"\n    baseUrl: "+srv.URL+"\n    timeout: 2s\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		prod := apptest.NewOn(t, db, apptest.Production, apptest.ServedAtPublicURL, withBanks(dir))
		token := prod.Token(t, apptest.Merchant)
		start := func(cents int) (string, page) {
			t.Helper()
			body := with(apptest.EUPayment(), "openBankingEU", map[string]any{"institutionId": apptest.BankDE})
			body["amount"] = cents
			p := prod.CreatePayment(t, token, "api", body, nil)
			return p.ID, newPayer(t, prod).get(p.DirectURL())
		}
		// The initiation fails: straight back to a page that says so.
		for _, cents := range []int{postHangs, post500, postMalformed} {
			id, toBank := start(cents)
			final, _ := newPayer(t, prod).follow(toBank.Location)
			final.must(t, http.StatusOK, "Payment failed", "technical problem")
			if st := statusOf(t, prod, id); st != payment.StatusErrorAtBank {
				t.Errorf("initiation %d: %s", cents, st)
			}
		}
		for _, cents := range []int{postHangs, post500} {
			bank.mu.Lock()
			ids := bank.requestIDs[fmt.Sprint(cents)]
			bank.mu.Unlock()
			if len(ids) != 2 || ids[0] != ids[1] || ids[0] == "" {
				t.Errorf("a retried initiation (%d): X-Request-IDs %v", cents, ids)
			}
		}
		// The status cannot be read when the payer comes back.
		for _, cents := range []int{statusUnknown, status503, statusHangs, statusGarbage} {
			id, toBank := start(cents)
			if !strings.HasPrefix(toBank.Location, "https://sca.hostile.example/") {
				t.Fatalf("%d: to %s", cents, toBank.Location)
			}
			final, _ := newPayer(t, prod).follow("/checkout/" + id + "/return?" + url.Values{"token": {tokenOfPayment(t, prod, id)}}.Encode())
			final.must(t, http.StatusOK, "Payment failed")
			if st := statusOf(t, prod, id); st != payment.StatusErrorAtBank {
				t.Errorf("status %d: %s", cents, st)
			}
		}
		// The payer never comes back: the poll job reads the bank's answer,
		// the abandonment or the bank's silence ends the rest.
		executed, _ := start(neverBackACSC)
		silent, _ := start(neverBackRCVD)
		pending, toBank := start(pendingForever)
		if !strings.HasPrefix(toBank.Location, "https://sca.hostile.example/") {
			t.Fatalf("to %s", toBank.Location)
		}
		newPayer(t, prod).follow("/checkout/" + pending + "/return?" + url.Values{"token": {tokenOfPayment(t, prod, pending)}}.Encode())
		if st := statusOf(t, prod, pending); st != payment.StatusDelayedAtBank {
			t.Fatalf("pending at the bank: %s", st)
		}
		prod.Clock.Advance(xs2a.PollFirst)
		apptest.Eventually(t, "the poll job's reading of an executed payment", func() bool { return statusOf(t, prod, executed) == payment.StatusCompleted })
		prod.Clock.Advance(payment.AbandonAfter)
		apptest.Eventually(t, "the abandonment", func() bool { return statusOf(t, prod, silent) == payment.StatusAbandonedByUser })
		prod.Clock.Advance(payment.BankSilence)
		apptest.Eventually(t, "the end of the bank's silence", func() bool { return statusOf(t, prod, pending) == payment.StatusRefusedByBank })
	})
}

// tokenOfPayment is the checkout token of payment id.
func tokenOfPayment(t *testing.T, env *apptest.Env, id string) string {
	t.Helper()
	p, err := env.App.Store().Payments().GetByID(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return p.CheckoutToken
}
