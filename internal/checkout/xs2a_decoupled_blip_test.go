package checkout_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/xs2a"
)

// flakyAppBank is a NextGenPSD2 bank of the decoupled approach whose
// status reads answer 503 while it is down, else its transactionStatus.
type flakyAppBank struct {
	mu     sync.Mutex
	down   bool
	status string
}

func (f *flakyAppBank) set(down bool, status string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down, f.status = down, status
}

func (f *flakyAppBank) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	down, status := f.down, f.status
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodPost {
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(xs2a.InitiationResponse{TransactionStatus: "RCVD", PaymentID: "p1", PSUMessage: "Confirm in the Flaky app",
			Links: xs2a.Links{SCAStatus: &xs2a.Href{Href: "/v1/payments/sepa-credit-transfers/p1/authorisations/a1"}}})
		return
	}
	if down {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	_ = json.NewEncoder(w).Encode(xs2a.StatusResponse{TransactionStatus: status})
}

// The waiting page of a decoupled authorisation asks the bank at each
// reload (every 3 s); a bank that fails to tell the status (503) does not
// end the payment while it has failed for less than
// xs2a.AppFailureWindow since its first failed read: the page waits on
// through several failed reads and follows the answer once the bank is
// back. A good reading ends the streak (the window starts again at the
// next failure); a bank down for the whole window ends it ERROR_AT_BANK,
// and the payer is told. Both engines.
func TestDecoupledWaitingPageRidesOutABlip(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		bank := &flakyAppBank{status: "RCVD"}
		srv := httptest.NewServer(bank)
		t.Cleanup(srv.Close)
		dir := filepath.Join(t.TempDir(), "banks.yaml")
		if err := os.WriteFile(dir, []byte("banks:\n  - id: "+apptest.BankDE+"\n    baseUrl: "+srv.URL+"\n    timeout: 2s\n    scaApproach: DECOUPLED\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		prod := apptest.NewOn(t, db, apptest.Production, apptest.ServedAtPublicURL, withBanks(dir))
		token := prod.Token(t, apptest.Merchant)
		start := func() (string, string, *payer) {
			t.Helper()
			bank.set(false, "RCVD")
			body := with(apptest.EUPayment(), "openBankingEU", map[string]any{"institutionId": apptest.BankDE})
			p := prod.CreatePayment(t, token, "api", body, nil)
			pr := newPayer(t, prod)
			arrive := pr.get(p.DirectURL())
			arrive.must(t, http.StatusSeeOther)
			if !strings.Contains(arrive.Location, "/bank-app?") {
				t.Fatalf("the payer goes to %s, not to the waiting page", arrive.Location)
			}
			pr.get(arrive.Location).must(t, http.StatusOK, "Confirm the payment in your bank", "Confirm in the Flaky app")
			return p.ID, arrive.Location, pr
		}
		waits := func(pr *payer, wait, id, when string) {
			t.Helper()
			pr.get(wait).must(t, http.StatusOK, "Confirm the payment in your bank", "Confirm in the Flaky app")
			if st := statusOf(t, prod, id); st != payment.StatusBankRedirect {
				t.Fatalf("%s: %s", when, st)
			}
		}

		// A blip: three failed reads over a minute, then the app's answer.
		id, wait, pr := start()
		bank.set(true, "")
		for range 3 {
			waits(pr, wait, id, "a failed read within the window")
			prod.Clock.Advance(20 * time.Second)
		}
		bank.set(false, "ACSC")
		if pg := pr.get(wait); pg.Status != http.StatusSeeOther {
			t.Fatalf("the waiting page once the bank is back: %d\n%s", pg.Status, pg.Body)
		}
		if st := statusOf(t, prod, id); st != payment.StatusCompleted {
			t.Fatalf("after the blip and the app's approval: %s", st)
		}

		// A good reading ends the streak: failures on both sides of it,
		// each shorter than the window, end nothing.
		id, wait, pr = start()
		bank.set(true, "")
		waits(pr, wait, id, "the first failure")
		prod.Clock.Advance(xs2a.AppFailureWindow - time.Second)
		bank.set(false, "RCVD")
		waits(pr, wait, id, "a good reading")
		bank.set(true, "")
		waits(pr, wait, id, "a new failure")
		prod.Clock.Advance(xs2a.AppFailureWindow - time.Second)
		waits(pr, wait, id, "a new streak within the window")

		// A bank down for the whole window: ERROR_AT_BANK, and the payer is
		// told. (The poll job, which reads the status too, may have restarted
		// the streak while the clock moved, at the latest on the last
		// advance: a whole window more is over it in any case.)
		prod.Clock.Advance(xs2a.AppFailureWindow)
		pg, _ := pr.follow(wait)
		if st := statusOf(t, prod, id); st != payment.StatusErrorAtBank {
			t.Fatalf("a bank down for %s: %s", xs2a.AppFailureWindow, st)
		}
		if strings.Contains(pg.Body, "Confirm the payment in your bank") {
			t.Fatalf("the payer still waits:\n%s", pg.Body)
		}
	})
}
