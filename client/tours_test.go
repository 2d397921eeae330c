package client_test

import (
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/client"
	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
)

// The parts of TestEveryOperationAgainstARealInstance after payments.

// mandateTour is the mandates and their amendments.
func mandateTour(t *testing.T, c *client.Client) {
	ctx := t.Context()
	m := must(c.CreateMandate(ctx, api.MandateCreateRequest{Type: "PAYTO",
		Payer:    api.MandatePayer{Name: "Ann Payer", AccountIdentifiers: api.MandateAccountIdentifiers{Bsb: client.Ptr("062000"), AccountNumber: client.Ptr("12345678")}},
		Validity: &api.MandateValidityChange{From: client.Ptr("2026-06-01 00:00:00"), To: client.Ptr("2027-06-01 00:00:00")},
		PayTo:    &api.MandatePayTo{Limits: &api.MandatePayToLimits{Payment: &api.MandatePayToPaymentLimit{Amount: client.Ptr[int64](5000)}}}}))
	if m.Status != api.MandateStatusREQUESTED {
		t.Fatalf("mandate %+v", m)
	}
	if a := must(c.AuthoriseSandboxMandate(ctx, m.ID, api.SandboxMandateAuthoriseRequest{Outcome: "AUTHORISED"})); a.Status != api.MandateStatusACTIVE {
		t.Fatalf("authorised %s", a.Status)
	}
	if s := must(c.SuspendMandate(ctx, m.ID)); s.Status != api.MandateStatusSUSPENDED {
		t.Errorf("suspended %s", s.Status)
	}
	if r := must(c.ResumeMandate(ctx, m.ID)); r.Status != api.MandateStatusACTIVE {
		t.Errorf("resumed %s", r.Status)
	}
	amend := func(to string) *api.Amendment {
		return must(c.CreateAmendment(ctx, m.ID, api.AmendmentRequest{Validity: &api.MandateValidityChange{To: client.Ptr(to)}}))
	}
	a1 := amend("2028-01-01 00:00:00")
	if g := must(c.GetAmendment(ctx, a1.ID)); g.Status.Status != api.AmendmentStatusAWAITINGAPPROVAL {
		t.Errorf("amendment %+v", g.Status)
	}
	if u := must(c.AmendmentApprovalURL(ctx, a1.ID)); !strings.Contains(u, "/mock-banks/amendments/"+a1.ID+"?token=") {
		t.Errorf("approval page %q", u)
	}
	if ap := must(c.ApproveSandboxAmendment(ctx, a1.ID)); ap.Status.Status != api.AmendmentStatusAPPROVED {
		t.Errorf("approved %+v", ap.Status)
	}
	if u := must(c.AmendmentApprovalURL(ctx, a1.ID)); u != "" {
		t.Errorf("an answered amendment's approval page %q", u)
	}
	if d := must(c.DeclineSandboxAmendment(ctx, amend("2029-01-01 00:00:00").ID)); d.Status.Status != api.AmendmentStatusDECLINED {
		t.Errorf("declined %+v", d.Status)
	}
	a3 := amend("2030-01-01 00:00:00")
	must(0, c.RecallAmendment(ctx, a3.ID))
	if _, err := c.GetAmendment(ctx, a3.ID); !client.IsCode(err, api.ErrorCodeRESOURCENOTFOUND) {
		t.Errorf("a recalled amendment: %v", err)
	}
	if got := must(c.GetMandate(ctx, m.ID)); got.Validity.To == nil || !strings.HasPrefix(*got.Validity.To, "2028-01-01") {
		t.Errorf("amended mandate %+v", got.Validity)
	}
	if x := must(c.CancelMandate(ctx, m.ID)); x.Status != api.MandateStatusCANCELLED {
		t.Errorf("cancelled %s", x.Status)
	}
	if l := must(c.ListMandates(ctx, &api.ListMandatesParams{Type: client.Ptr(api.MandateTypePAYTO)})); l.TotalItems != 1 {
		t.Errorf("mandates %+v", l)
	}
	if all := collect(t, c.AllMandates(ctx, nil)); len(all) != 1 || all[0].ID != m.ID {
		t.Errorf("all mandates %+v", all)
	}
}

// reportTour asks for each report, waits for it and downloads one.
func reportTour(t *testing.T, c *client.Client, accountID string) {
	ctx := t.Context()
	from, to := apptest.Epoch.Add(-time.Hour).Format(time.RFC3339), apptest.Epoch.Add(48*time.Hour).Format(time.RFC3339)
	ids := []string{
		must(c.CreatePaymentsReport(ctx, api.PaymentsReportRequest{StartDate: from, EndDate: to, AllowEmpty: client.Ptr(true)})).ID,
		must(c.CreateRefundsReport(ctx, api.RefundsReportRequest{StartDate: from, EndDate: to})).ID,
		must(c.CreatePayoutsReport(ctx, api.PayoutsReportRequest{StartDate: from, EndDate: to})).ID,
		must(c.CreateAuditLogReport(ctx, api.AuditLogReportRequest{StartDate: from, EndDate: to, AllowEmpty: client.Ptr(true)})).ID,
		must(c.CreateConnectReport(ctx, accountID, api.ConnectReportRequest{StartDate: from, EndDate: to, AllowEmpty: client.Ptr(true)})).ID,
	}
	for _, id := range ids {
		eventually(t, "report "+id, func() bool {
			return must(c.GetReport(ctx, id)).Status == api.ReportStatusREPORTAVAILABLE
		})
	}
	csv := must(c.DownloadReport(ctx, ids[0]))
	defer csv.Close()
	if b := must(io.ReadAll(csv)); strings.Count(string(b), "\n") < 3 {
		t.Errorf("payments report:\n%s", b)
	}
	if l := must(c.ListReports(ctx, &api.ListReportsParams{Limit: client.Ptr[int64](2)})); l.TotalItems != 5 || l.PageCount != 3 {
		t.Errorf("reports %+v", l)
	}
	if all := collect(t, c.AllReports(ctx, &api.ListReportsParams{Limit: client.Ptr[int64](2)})); len(all) != 5 {
		t.Errorf("all reports: %d", len(all))
	}
}

// ledgerTour is accounts, channels and payouts.
func ledgerTour(t *testing.T, c *client.Client, accountID string) {
	ctx := t.Context()
	if l := must(c.ListAccounts(ctx, &api.ListAccountsParams{Currency: client.Ptr("EUR")})); l.TotalItems != 1 || l.Items[0].ID != accountID {
		t.Errorf("accounts %+v", l)
	}
	if all := collect(t, c.AllAccounts(ctx, nil)); len(all) != 1 {
		t.Errorf("all accounts %+v", all)
	}
	acct := must(c.GetAccount(ctx, accountID))
	if acct.Balance.Available != 1050-300-100+5000 { // the payment, its refund, its legacy refund, a manual credit
		t.Errorf("balance %+v", acct.Balance)
	}
	txs := collect(t, c.AllAccountTransactions(ctx, accountID, &api.ListAccountTransactionsParams{Limit: client.Ptr[int64](1)}))
	if len(txs) != 4 {
		t.Errorf("transactions %+v", txs)
	}
	if p := must(c.ListAccountTransactions(ctx, accountID, &api.ListAccountTransactionsParams{Type: client.Ptr(api.AccountTransactionTypeMANUALCREDIT)})); p.TotalItems != 1 {
		t.Errorf("manual credits %+v", p)
	}
	if tx := must(c.GetTransaction(ctx, txs[0].ID)); tx.ID != txs[0].ID {
		t.Errorf("transaction %+v", tx)
	}

	ch := must(c.CreateChannel(ctx, api.ChannelCreateRequest{Token: "USDC", Network: "ETH", Currency: "EUR", EndUser: api.ChannelEndUser{Reference: "user-42"}}))
	if g := must(c.GetChannel(ctx, ch.ID)); g.Address != ch.Address {
		t.Errorf("channel %+v", g)
	}
	if l := must(c.ListChannels(ctx, nil)); l.TotalItems != 1 {
		t.Errorf("channels %+v", l)
	}
	if all := collect(t, c.AllChannels(ctx, nil)); len(all) != 1 {
		t.Errorf("all channels %+v", all)
	}
	dep := must(c.DepositSandboxChannel(ctx, ch.ID, api.SandboxChannelDepositRequest{Amount: "125.5"}))
	must(c.DepositSandboxChannel(ctx, ch.ID, api.SandboxChannelDepositRequest{Amount: "1"}))
	if g := must(c.GetChannelPayment(ctx, dep.ID)); g.ID != dep.ID {
		t.Errorf("deposit %+v", g)
	}
	if p := must(c.ListChannelPayments(ctx, ch.ID, &api.ListChannelPaymentsParams{Limit: client.Ptr[int64](1)})); len(p.Items) != 1 || p.Last() {
		t.Errorf("deposits page %+v", p)
	}
	if all := collect(t, c.AllChannelPayments(ctx, ch.ID, &api.ListChannelPaymentsParams{Limit: client.Ptr[int64](1)})); len(all) != 2 || all[0].ID != dep.ID {
		t.Errorf("all deposits %+v", all)
	}

	payout := func(amount int64, scenario string) *api.Payout {
		var params *api.CreatePayoutParams
		if scenario != "" {
			params = &api.CreatePayoutParams{XServiceTestingScenario: client.Ptr(api.CreatePayoutParamsXServiceTestingScenario(scenario))}
		}
		return must(c.CreatePayout(ctx, api.PayoutRequest{AccountID: accountID, Amount: amount, Currency: "EUR", PaymentReference: "Invoice 42",
			Beneficiary: api.PayoutBeneficiary{Name: "Jane Doe", AccountIdentifiers: api.PayoutAccountIdentifiers{IBAN: client.Ptr(payeeIBAN)}}}, params))
	}
	paid := payout(1000, "")
	eventually(t, "the payout completed", func() bool { return must(c.GetPayout(ctx, paid.ID)).Status == api.PayoutStatusCOMPLETED })
	ahv := must(c.ListAccountHolderVerifications(ctx, api.ListAccountHolderVerificationsParams{TransactionID: paid.ID}))
	if len(ahv) != 1 || ahv[0].Result != api.AccountHolderVerificationResultMATCH {
		t.Fatalf("verifications %+v", ahv)
	}
	if v := must(c.GetAccountHolderVerification(ctx, ahv[0].ID)); v.TransactionID != paid.ID ||
		v.UnderscoreLinks.Transaction != (api.Link{Href: "/payouts/" + paid.ID, Method: api.LinkMethodGET}) {
		t.Errorf("verification %+v", v)
	}
	held := payout(200, "ACCOUNT_HOLDER_VERIFICATION_CLOSE_MATCH")
	if v := must(c.ApproveAccountHolderVerification(ctx, held.AccountHolderVerificationID)); v.Decision == nil {
		t.Errorf("approved %+v", v)
	}
	refused := payout(300, "ACCOUNT_HOLDER_VERIFICATION_NO_MATCH")
	if v := must(c.RejectAccountHolderVerification(ctx, refused.AccountHolderVerificationID)); v.Decision == nil {
		t.Errorf("rejected %+v", v)
	}
	if g := must(c.GetPayout(ctx, refused.ID)); g.Status != api.PayoutStatusREJECTED {
		t.Errorf("rejected payout is %s", g.Status)
	}
	if l := must(c.ListPayouts(ctx, &api.ListPayoutsParams{AccountID: &accountID})); l.TotalItems != 3 {
		t.Errorf("payouts %+v", l)
	}
	if all := collect(t, c.AllPayouts(ctx, &api.ListPayoutsParams{Limit: client.Ptr[int64](2)})); len(all) != 3 {
		t.Errorf("all payouts: %d", len(all))
	}

	order := must(c.CreateAliasOrder(ctx, api.AliasOrderRequest{AccountID: accountID, Count: 3}, nil))
	eventually(t, "the alias order completed", func() bool {
		return must(c.GetAliasOrder(ctx, order.ID)).Status == api.AliasOrderStatusCOMPLETED
	})
	aliases := collect(t, c.AllAccountAliases(ctx, &api.ListAccountAliasesParams{OrderID: &order.ID, Limit: client.Ptr[int64](2)}))
	if len(aliases) != 3 || aliases[0].AccountID != accountID || !aliases[0].Active {
		t.Fatalf("aliases %+v", aliases)
	}
	if p := must(c.ListAccountAliases(ctx, &api.ListAccountAliasesParams{AccountID: &accountID})); p.TotalItems != 3 {
		t.Errorf("aliases of the account %+v", p)
	}
	if off := must(c.UpdateAccountAlias(ctx, aliases[0].ID, api.AccountAliasUpdate{Active: false})); off.Active {
		t.Errorf("alias switched off %+v", off)
	}
	if g := must(c.GetAccountAlias(ctx, aliases[0].ID)); g.Active || g.IBAN != aliases[0].IBAN {
		t.Errorf("alias %+v", g)
	}
}

// demoTour is what only an instance with the demo merchant answers: the
// start page's demo payment.
func demoTour(t *testing.T, engine dbtest.Engine, rec *recorder) {
	db := dbtest.Migrated(t, engine)
	cfg := config.Default()
	cfg.DataDir, cfg.DatabaseURL = db.DataDir, db.DatabaseURL
	if engine == dbtest.Postgres {
		cfg.DataDir = t.TempDir()
	}
	demo, err := startDemo(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(demo.close)
	anon := must(client.New(demo.URL, client.WithHTTPClient(&http.Client{Transport: rec})))
	r := must(anon.CreateDemoPayment(t.Context()))
	if r.Status != http.StatusSeeOther || !strings.Contains(r.Location, "/checkout/") {
		t.Fatalf("demo payment %+v", r)
	}
	id := path.Base(must(url.Parse(r.Location)).Path)
	page := must(anon.ShowCheckoutPage(t.Context(), id, api.ShowCheckoutPageParams{Token: tokenOf(t, r.Location)}))
	if page.Status != 200 || !strings.Contains(page.HTML, "10.50") {
		t.Errorf("the demo payment's checkout: %d", page.Status)
	}
}
