package app_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/payout"
)

// ledgerMetrics scrapes a's bankrail_ledger_* series: "name{labels}" -> value.
func ledgerMetrics(t *testing.T, a *app.App) map[string]float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("metrics: %d", rec.Code)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok || !strings.HasPrefix(name, "bankrail_ledger_") {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", sc.Text(), err)
		}
		out[name] = v
	}
	return out
}

// payOut pays amount out of shop A's account (the sandbox decides by the
// amount: payout.RejectedAmount is rejected and its hold released).
func payOut(t *testing.T, a *app.App, amount int64) {
	t.Helper()
	_, err := a.Payouts().Create(adminContext(), payout.Input{ViewerCustomerID: settleShopA, ClientID: "settle-a",
		AccountID: settleAccountA, Amount: amount, Currency: "EUR", PaymentReference: "Payout " + strconv.FormatInt(amount, 10),
		Beneficiary: payout.Beneficiary{Name: "Jane Doe", IBAN: "DE89370400440532013000"}},
		func(payout.Payout) ([]byte, error) { return []byte("{}"), nil })
	if err != nil {
		t.Fatal(err)
	}
}

// TestPeriodicVerificationOfTheBooks: books made by the services
// (payments received, refunds confirmed and rejected, payouts completed
// and rejected) balance, and the periodic job says so in its metrics, its
// timestamp on the service clock; a cached balance doctored behind the
// ledger's back is a discrepancy in the gauge and an unbalanced run.
func TestPeriodicVerificationOfTheBooks(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		base := clock.NewFake(settleEpoch)
		a := settleApp(t, db, config.Sandbox, base, app.Options{})
		ctx := context.Background()
		if got := ledgerMetrics(t, a); got["bankrail_ledger_last_verification_timestamp_seconds"] != 0 {
			t.Fatalf("before the first run: %v", got)
		}
		first := receivedPayment(t, a, settleShopA, "settle-a", 5000)
		receivedPayment(t, a, settleShopA, "settle-a", 7000)
		receivedPayment(t, a, settleShopB, "settle-b", 900)
		requestRefund(t, a, settleShopA, first, 1200, false)
		requestRefund(t, a, settleShopA, first, 300, true)
		runJobs(t, a)
		payOut(t, a, 2000)
		payOut(t, a, payout.RejectedAmount)
		runJobs(t, a)

		r, err := ledger.VerifyBooks(ctx, a.Store().Books(), base.Now())
		if err != nil || !r.Balanced() || r.Accounts != 2 || r.Entries < 10 {
			t.Fatalf("books made by the services: %+v %v", r, err)
		}
		t.Logf("books made by the services: %d accounts, %d entries, %d postings", r.Accounts, r.Entries, r.Postings)
		base.Advance(90 * time.Second)
		if err := a.VerifyBooks(ctx); err != nil {
			t.Fatal(err)
		}
		got := ledgerMetrics(t, a)
		want := map[string]float64{
			`bankrail_ledger_discrepancies{kind="balance"}`:             0,
			`bankrail_ledger_discrepancies{kind="entry"}`:               0,
			`bankrail_ledger_verifications_total{outcome="balanced"}`:   1,
			`bankrail_ledger_verifications_total{outcome="unbalanced"}`: 0,
			"bankrail_ledger_last_verification_timestamp_seconds":       float64(base.Now().UnixNano()) / 1e9,
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s = %v, want %v", k, got[k], v)
			}
		}

		write, _ := a.Store().Pools()
		if _, err := write.ExecContext(ctx, `UPDATE ledger_accounts SET pending = pending + 1 WHERE id = $1`, settleAccountB); err != nil {
			t.Fatal(err)
		}
		if err := a.VerifyBooks(ctx); err != nil {
			t.Fatal(err)
		}
		got = ledgerMetrics(t, a)
		if got[`bankrail_ledger_discrepancies{kind="balance"}`] != 1 || got[`bankrail_ledger_verifications_total{outcome="unbalanced"}`] != 1 {
			t.Fatalf("after the doctored balance: %v", got)
		}
	})
}
