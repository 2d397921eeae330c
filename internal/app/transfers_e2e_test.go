package app_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/camt/camttest"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/pain"
	"github.com/bankrail/bankrail/internal/pain/xsdcheck"
	"github.com/bankrail/bankrail/internal/payout"
	"github.com/bankrail/bankrail/internal/refund"
	"github.com/bankrail/bankrail/internal/transfer"
	"github.com/bankrail/bankrail/notification"
)

const beneficiaryIBAN = "FR1420041010050500013M02606"

// createPayout creates a payout of amount from shop A's account in a and
// returns it PROCESSING (the verification is a MATCH).
func createPayout(t *testing.T, a *app.App, amount int64, key string) payout.Payout {
	t.Helper()
	resp, err := a.Payouts().Create(adminContext(), payout.Input{ViewerCustomerID: settleShopA, ClientID: "settle-a", IdempotencyKey: key,
		AccountID: settleAccountA, Amount: amount, Currency: "EUR", PaymentReference: "Auszahlung Nr. " + key, Type: payout.TypePayout,
		Beneficiary: payout.Beneficiary{Name: "Zoë Bénéficiaire", IBAN: beneficiaryIBAN}},
		func(p payout.Payout) ([]byte, error) { return json.Marshal(p) })
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.Payouts().Get(adminContext(), settleShopA, resp.ResourceID)
	if err != nil || p.Status != payout.Processing {
		t.Fatalf("payout %+v %v, want PROCESSING", p.Status, err)
	}
	return p
}

// balanceOf reads shop A's account and checks its cached balance against
// its postings.
func balanceOf(t *testing.T, a *app.App) ledger.Balance {
	t.Helper()
	ctx := adminContext()
	acct, err := a.Store().Ledger().Account(ctx, settleShopA, settleAccountA)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := a.Store().Ledger().Entries(ctx, settleAccountA)
	if err != nil {
		t.Fatal(err)
	}
	if sum := ledger.Replay(entries)[settleAccountA]; sum != acct.Balance {
		t.Fatalf("cached balance %+v, postings %+v", acct.Balance, sum)
	}
	return acct.Balance
}

// A payout and a refund go end to end in production: created (held),
// written to a pain.001 that validates against the official XSD, answered
// by the bank's pain.002 that rejects one of each (REJECTED, funds back,
// their notifications) and accepts the others (waiting, held), which the
// bank's camt.054 debit advice then books through the statement importer
// (transfer rows BOOKED, owners COMPLETED, CONFIRMED). The answer again,
// the advice again and a rejection after the debits change nothing; the
// books balance throughout.
func TestTransfersEndToEndInProduction(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		base := clock.NewFake(settleEpoch)
		sandbox := settleApp(t, db, config.Sandbox, base, app.Options{})
		paid := receivedPayment(t, sandbox, settleShopA, "settle-a", 1000) // production has no mock bank to receive it
		if err := sandbox.Close(); err != nil {
			t.Fatal(err)
		}
		prod := settleApp(t, db, config.Production, base, app.Options{})
		okRefund := requestRefund(t, prod, settleShopA, paid, 100, false)
		badRefund := requestRefund(t, prod, settleShopA, paid, 200, false)
		runJobs(t, prod) // the refunds' settlement jobs queue their transfers
		// A refund whose settlement job has not run has no transfer row (as
		// one made before the transfer files): its debit books it directly.
		oldRefund := requestRefund(t, prod, settleShopA, paid, 50, false)
		okPayout := createPayout(t, prod, 150, "p-ok")
		badPayout := createPayout(t, prod, 250, "p-bad")
		if b := balanceOf(t, prod); b.Available != 250 || b.Held != 750 {
			t.Fatalf("after creation: %+v", b)
		}

		dir := t.TempDir()
		files, err := prod.ExportTransfers(adminContext(), dir)
		if err != nil || len(files) != 1 {
			t.Fatalf("export: %d files, %v", len(files), err)
		}
		f, err := prod.Transfers().File(operatorContext(), files[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		xsdcheck.Validate(t, "pain.001.001.10.xsd", f.Body)
		if f.Count != 4 || f.Sum != 700 || f.DeliveredAt.IsZero() && len(files) == 0 {
			t.Fatalf("file: %d transfers of %d", f.Count, f.Sum)
		}
		if again, err := prod.ExportTransfers(adminContext(), dir); err != nil || len(again) != 0 {
			t.Fatalf("a second export: %d files, %v", len(again), err)
		}

		answer := bankAnswer(t, f, map[string]string{okRefund.TransactionID: "ACCP", okPayout.ID: "ACSC",
			badRefund.TransactionID: "RJCT", badPayout.ID: "RJCT"})
		sum, err := prod.Transfers().ImportStatus(operatorContext(), answer)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Accepted != 2 || sum.Rejected != 2 || sum.Duplicate || len(sum.Unknown) != 0 {
			t.Fatalf("summary %+v", sum)
		}
		if g := refundStatus(t, prod, badRefund); g.Status != refund.Rejected {
			t.Fatalf("rejected refund: %s", g.Status)
		}
		if s := settlementOf(t, prod, badRefund); s.entries != 2 || s.notes[notification.TypeRefundRejected] != 1 {
			t.Fatalf("rejected refund's books: %+v", s)
		}
		if p, _ := prod.Payouts().Get(adminContext(), settleShopA, badPayout.ID); p.Status != payout.Rejected {
			t.Fatalf("rejected payout: %s", p.Status)
		}
		if b := balanceOf(t, prod); b.Available != 700 || b.Held != 300 {
			t.Fatalf("after the answer: %+v, want 700 available, 300 held", b)
		}
		if g := refundStatus(t, prod, okRefund); g.Status != refund.Pending {
			t.Fatalf("accepted refund: %s", g.Status)
		}

		again, err := prod.Transfers().ImportStatus(operatorContext(), answer)
		if err != nil || !again.Duplicate {
			t.Fatalf("the answer again: %+v %v", again, err)
		}
		if b := balanceOf(t, prod); b.Available != 700 || b.Held != 300 {
			t.Fatalf("after the answer again: %+v", b)
		}

		// The bank's camt.054 debit advice books the accepted ones through
		// the statement importer: their transfer rows BOOKED, their owners
		// ended by them.
		acct, err := prod.Store().Ledger().Account(adminContext(), settleShopA, settleAccountA)
		if err != nil {
			t.Fatal(err)
		}
		advice := camttest.String(54, 8, "DEBITS-1", camttest.Stmt{IBAN: acct.IBAN, Entries: []camttest.Entry{
			{AcctSvcrRef: "DR-REFUND", Minor: 100, Txs: []camttest.Tx{{EndToEndID: pain.EndToEndID(okRefund.TransactionID)}}},
			{AcctSvcrRef: "DR-PAYOUT", Minor: 150, Txs: []camttest.Tx{{EndToEndID: pain.EndToEndID(okPayout.ID)}}},
			{AcctSvcrRef: "DR-OLD", Minor: 50, Txs: []camttest.Tx{{EndToEndID: pain.EndToEndID(oldRefund.TransactionID)}}}}})
		xsdcheck.Validate(t, "camt.054.001.08.xsd", []byte(advice))
		if s := importDoc(t, prod, "advice.xml", advice); s.OutgoingConfirmed != 3 || s.Exceptions != 0 || len(s.Rejected) != 0 {
			t.Fatalf("debit advice %+v", s)
		}
		for _, id := range []string{okRefund.TransactionID, okPayout.ID} {
			if tr, err := prod.Store().Transfers().Get(adminContext(), id); err != nil || tr.State != transfer.Booked {
				t.Fatalf("transfer %s after its debit: %s %v", id, tr.State, err)
			}
			if booked, err := prod.Transfers().BookAlone(adminContext(), id, true, ""); err != nil || booked {
				t.Fatalf("book %s again: %v %v, want nothing done", id, booked, err)
			}
		}
		if _, err := prod.Store().Transfers().Get(adminContext(), oldRefund.TransactionID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("the refund without a transfer has one after its debit: %v", err)
		}
		runJobs(t, prod) // its settlement job, late, sends nothing
		if _, err := prod.Store().Transfers().Get(adminContext(), oldRefund.TransactionID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("a booked refund's late job queued a transfer: %v", err)
		}
		checkBooked := func(when string) {
			t.Helper()
			if g := refundStatus(t, prod, oldRefund); g.Status != refund.Confirmed {
				t.Fatalf("%s: refund without a transfer %s", when, g.Status)
			}
			if g := refundStatus(t, prod, okRefund); g.Status != refund.Confirmed {
				t.Fatalf("%s: booked refund %s", when, g.Status)
			}
			if s := settlementOf(t, prod, okRefund); s.entries != 2 || s.notes[notification.TypeRefundConfirmed] != 1 {
				t.Fatalf("%s: booked refund's books %+v", when, s)
			}
			if p, _ := prod.Payouts().Get(adminContext(), settleShopA, okPayout.ID); p.Status != payout.Completed {
				t.Fatalf("%s: booked payout %s", when, p.Status)
			}
			if b := balanceOf(t, prod); b.Available != 700 || b.Held != 0 {
				t.Fatalf("%s: %+v, want 700 available, 0 held", when, b)
			}
		}
		checkBooked("after the debits")

		// A rejection the bank sends after it booked the debits changes
		// nothing, and says so.
		late, err := prod.Transfers().ImportStatus(operatorContext(), bankAnswerID(t, "LATE-"+f.MsgID[:20], f,
			map[string]string{okRefund.TransactionID: "RJCT", okPayout.ID: "RJCT"}))
		if err != nil {
			t.Fatal(err)
		}
		if late.Rejected != 0 || late.Unchanged+late.Pending != 4 || late.Duplicate || len(late.RejectedAfterBooking) != 2 {
			t.Fatalf("a late rejection: %+v", late)
		}
		checkBooked("after a late rejection")
		if again := importDoc(t, prod, "advice-again.xml", advice); again.Duplicates != 3 || again.OutgoingConfirmed != 0 {
			t.Fatalf("the advice again: %+v", again)
		}
		checkBooked("after the advice again")
		if _, err := prod.Transfers().BookAlone(adminContext(), badPayout.ID, true, ""); !errs.Is(err, errs.Conflict) {
			t.Fatalf("booking a rejected transfer: %v", err)
		}
	})
}

// bankAnswer is the bank's pain.002 to file f: each transfer (by its
// transaction id) with its status code.
func bankAnswer(t *testing.T, f transfer.File, codes map[string]string) []byte {
	t.Helper()
	return bankAnswerID(t, "BANK-"+f.MsgID[:20], f, codes)
}

// bankAnswerID is bankAnswer with the report's MsgId id.
func bankAnswerID(t *testing.T, id string, f transfer.File, codes map[string]string) []byte {
	t.Helper()
	a := pain.Answer{ID: id, CreatedAt: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC), OriginalMsgID: f.MsgID,
		Group: pain.Status{Code: "PART"}}
	for id, code := range codes {
		st := pain.Status{Code: code}
		if code == "RJCT" {
			st.Reason = "AC04: account closed"
		}
		a.Transactions = append(a.Transactions, pain.Transaction{PaymentInfoID: pain.PaymentInfoID(f.MsgID, 1),
			EndToEndID: pain.EndToEndID(id), Status: st})
	}
	var buf bytes.Buffer
	if err := pain.WriteStatus(&buf, a); err != nil {
		t.Fatal(err)
	}
	xsdcheck.Validate(t, "pain.002.001.11.xsd", buf.Bytes())
	return buf.Bytes()
}

// Production refuses at creation what its rail cannot carry: a payout to
// a sort code and account number (SEPA needs an IBAN) is a 422 that says
// so, and nothing is held.
func TestProductionRefusesPayoutsItCannotSend(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		base := clock.NewFake(settleEpoch)
		sandbox := settleApp(t, db, config.Sandbox, base, app.Options{})
		receivedPayment(t, sandbox, settleShopA, "settle-a", 1000)
		if err := sandbox.Close(); err != nil {
			t.Fatal(err)
		}
		prod := settleApp(t, db, config.Production, base, app.Options{})
		_, err := prod.Payouts().Create(adminContext(), payout.Input{ViewerCustomerID: settleShopA, ClientID: "settle-a", IdempotencyKey: "uk",
			AccountID: settleAccountA, Amount: 100, Currency: "EUR", PaymentReference: "r", Type: payout.TypePayout,
			Beneficiary: payout.Beneficiary{Name: "UK Ltd", SortCode: "040004", AccountNumber: "12345678"}},
			func(p payout.Payout) ([]byte, error) { return json.Marshal(p) })
		e, ok := errors.AsType[*errs.Error](err)
		if !ok || e.Code != errs.ValidationFailure || len(e.Fields) != 1 || e.Fields[0].PropertyPath != "beneficiary.accountIdentifiers.iban" ||
			!strings.Contains(e.Fields[0].Message, "SEPA") {
			t.Fatalf("a payout to a sort code in production: %#v", err)
		}
		if b := balanceOf(t, prod); b.Available != 1000 || b.Held != 0 {
			t.Fatalf("after the refusal: %+v", b)
		}
	})
}
