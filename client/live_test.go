package client_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/client"
	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/notification"
)

const payeeIBAN = "DE89370400440532013000"

// euPayment is a payment of amount EUR; without a beneficiary it is expected
// on the customer's Connect account.
func euPayment(amount int64, reference string, beneficiary bool) api.PaymentCreateRequest {
	p := api.PaymentCreateRequest{
		Currency: "EUR", Amount: client.Ptr(amount), PaymentSystem: api.PaymentSystemOPENBANKINGEU,
		PaymentReference: client.Ptr(reference),
		Payer:            &api.Payer{FirstName: client.Ptr("Anna"), LastName: client.Ptr("Müller")},
		OpenBankingEU:    &api.OpenBankingEURequest{Type: client.Ptr(api.PaymentTypeGOODS)},
		Checkout: &api.Checkout{Hosted: &api.HostedCheckout{Countries: &api.HostedCheckoutCountries{
			Available: &[]api.CountryCode{"DE", "AT"}}}},
	}
	if beneficiary {
		p.Beneficiary = &api.Beneficiary{Name: "Test Shop GmbH", AccountIdentifiers: &api.AccountIdentifiers{IBAN: client.Ptr(payeeIBAN)}}
	}
	return p
}

// tokenOf is the token query parameter of a payer's link.
func tokenOf(t *testing.T, link string) string {
	t.Helper()
	u := must(url.Parse(link))
	if tok := u.Query().Get("token"); tok != "" {
		return tok
	}
	t.Fatalf("%s has no token", link)
	return ""
}

func sorted(s ...string) []string { slices.Sort(s); return s }

// collect drains an iterator, failing the test on its error.
func collect[T any](t *testing.T, seq func(func(T, error) bool)) []T {
	t.Helper()
	var out []T
	for v, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// TestEveryOperationAgainstARealInstance calls every operation of the
// document through the SDK against a running bankrail, on SQLite and on
// PostgreSQL, checks what each answers, checks every exchange against
// api/openapi.yaml, and fails if an operation was not answered with a
// success at least once.
func TestEveryOperationAgainstARealInstance(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		defer failOnMust(t)
		rec := newRecorder(t, nil)
		env := apptest.NewOn(t, db)
		tour(t, env, rec)
		demoTour(t, db.Engine, rec)
		if missing := rec.uncovered(); len(missing) > 0 {
			slices.Sort(missing)
			t.Errorf("operations no call answered with a success: %v", missing)
		}
	})
}

// tour is every operation the fixture instance can answer.
func tour(t *testing.T, env *apptest.Env, rec *recorder) {
	ctx := t.Context()
	c := newClient(t, env.URL, apptest.Merchant, rec)
	anon := must(client.New(env.URL, client.WithHTTPClient(&http.Client{Transport: rec})))
	acct, _, err := env.App.Accounts().EnsureAccount(ctx, ledger.AccountSpec{CustomerID: apptest.ShopID, Currency: "EUR", Nickname: "sdk"})
	if err != nil {
		t.Fatal(err)
	}
	rc := apptest.NewReceiver(t)
	env.SetNotificationURL(t, apptest.Merchant, rc.URL)

	// The operational endpoints and static files: no token.
	if home := must(anon.GetHome(ctx)); home.Mode != api.HomeModeSandbox || home.Links.Openapi != "/openapi.json" {
		t.Errorf("home %+v", home)
	}
	if h := must(anon.Healthz(ctx)); h.Status != "ok" {
		t.Errorf("healthz %+v", h)
	}
	if r := must(anon.Readyz(ctx)); r.Status != api.ReadinessStatusReady {
		t.Errorf("readyz %+v", r)
	}
	if k := must(anon.GetJWKS(ctx)); len(k.Keys) == 0 || k.Keys[0].Kty != "OKP" {
		t.Errorf("jwks %+v", k)
	}
	if doc := must(anon.GetOpenAPI(ctx)); !strings.Contains(string(doc), `"operationId":"createPayment"`) {
		t.Errorf("openapi.json does not describe createPayment")
	}
	if m := must(anon.Metrics(ctx)); !strings.Contains(m, "bankrail_") {
		t.Errorf("metrics:\n%.300s", m)
	}
	if g := must(anon.GetMigrationGuide(ctx)); !strings.Contains(g, "#") {
		t.Errorf("guide %.100s", g)
	}
	for name, get := range map[string]func(context.Context) (string, error){
		"checkout.js": anon.GetCheckoutLibrary, "checkout.css": anon.GetCheckoutStyles, "embed.js": anon.GetCheckoutFrameScript} {
		if s := must(get(ctx)); len(s) < 50 {
			t.Errorf("%s: %q", name, s)
		}
	}
	// The fixture instance has no demo merchant (it has a seed): 404, typed.
	if _, err := anon.CreateDemoPayment(ctx); !client.IsCode(err, api.ErrorCodeRESOURCENOTFOUND) || client.StatusCode(err) != 404 {
		t.Errorf("demo payment without a demo merchant: %v", err)
	}

	// Tokens, directly.
	pw := api.TokenRequest{GrantType: "password", ClientID: apptest.Merchant.ClientID, ClientSecret: apptest.Merchant.ClientSecret,
		Username: client.Ptr(apptest.Merchant.Username), Password: client.Ptr(apptest.Merchant.Password)}
	tok := must(anon.CreateToken(ctx, pw))
	refreshed := must(anon.CreateToken(ctx, api.TokenRequest{GrantType: "refresh_token", ClientID: pw.ClientID,
		ClientSecret: pw.ClientSecret, RefreshToken: &tok.RefreshToken}))
	if refreshed.AccessToken == "" || refreshed.RefreshToken == tok.RefreshToken {
		t.Errorf("refresh %+v", refreshed)
	}
	if lt := must(anon.CreateLegacyToken(ctx, pw)); lt.TokenType != "Bearer" || lt.ExpiresIn != 86400 {
		t.Errorf("legacy token %+v", lt)
	}
	_, err = anon.CreateToken(ctx, api.TokenRequest{GrantType: "password", ClientID: pw.ClientID, ClientSecret: "wrong",
		Username: pw.Username, Password: pw.Password})
	var e *client.Error
	if !errors.As(err, &e) || e.StatusCode != 401 || e.Code != api.ErrorCodeUNAUTHORISED || e.TraceID == "" {
		t.Errorf("a wrong secret: %#v", err)
	}
	_, err = anon.CreateLegacyToken(ctx, api.TokenRequest{GrantType: "password", ClientID: pw.ClientID, ClientSecret: "wrong",
		Username: pw.Username, Password: pw.Password})
	if !errors.As(err, &e) || e.StatusCode != 401 || e.Code != "" || e.Message == "" || e.Message == "Unauthorized" {
		t.Errorf("a wrong secret at the legacy token endpoint: %#v", err)
	}

	// Banks.
	banks := must(c.ListBanks(ctx, &api.ListBanksParams{Country: client.Ptr("DE")}))
	if !slices.ContainsFunc(banks, func(b api.Bank) bool { return b.ID == apptest.BankDE }) {
		t.Fatalf("banks of DE: %+v", banks)
	}
	if b := must(c.GetBank(ctx, apptest.BankDE)); b.ID != apptest.BankDE {
		t.Errorf("bank %+v", b)
	}
	for _, svg := range [][]byte{must(anon.GetBankLogo(ctx, apptest.BankDE)), must(anon.GetBankIcon(ctx, apptest.BankDE))} {
		if !strings.Contains(string(svg), "<svg") {
			t.Errorf("not an SVG: %.80s", svg)
		}
	}

	// A payment the payer pays through the hosted checkout and the mock
	// bank, expected on the Connect account (no beneficiary).
	p1 := must(c.CreatePayment(ctx, euPayment(1050, "Order 1", false), nil))
	if p1.Status != api.PaymentStatusNEWPAYMENT || p1.Amount != 1050 {
		t.Fatalf("created %+v", p1)
	}
	short, direct := p1.PaymentInitiationFlow.Details.Redirect.URL, p1.PaymentInitiationFlow.Details.Redirect.DirectURL
	link := must(anon.FollowPaymentLink(ctx, path.Base(short)))
	if link.Status != http.StatusFound || link.Location != direct {
		t.Errorf("short link %s: %+v, want %s", short, link, direct)
	}
	token := tokenOf(t, direct)
	if page := must(anon.ShowCheckoutPage(ctx, p1.ID, api.ShowCheckoutPageParams{Token: token})); page.Status != 200 || !strings.Contains(page.HTML, "<html") {
		t.Errorf("checkout page %d", page.Status)
	}
	if page := must(anon.ShowCheckoutConfirmation(ctx, p1.ID, api.ShowCheckoutConfirmationParams{Token: token, Bank: apptest.BankDE})); page.Status != 200 {
		t.Errorf("confirmation page %d", page.Status)
	}
	toBank := must(anon.GoToBank(ctx, p1.ID, api.GoToBankFormdataBody{Token: token, Bank: apptest.BankDE}))
	if toBank.Status != http.StatusSeeOther || !strings.Contains(toBank.Location, "/mock-banks/"+apptest.BankDE+"/authorise/"+p1.ID) {
		t.Fatalf("go to bank: %+v", toBank)
	}
	bankToken := tokenOf(t, toBank.Location)
	if page := must(anon.ShowMockBank(ctx, apptest.BankDE, p1.ID, api.ShowMockBankParams{Token: bankToken})); page.Status != 200 {
		t.Errorf("mock bank page %d", page.Status)
	}
	answered := must(anon.AnswerAtMockBank(ctx, apptest.BankDE, p1.ID, api.AnswerAtMockBankFormdataBody{Token: bankToken, Outcome: "COMPLETED"}))
	if answered.Status != http.StatusSeeOther {
		t.Fatalf("mock bank answer %+v", answered)
	}
	if page := must(anon.ShowCheckoutOutcome(ctx, p1.ID, api.ShowCheckoutOutcomeParams{Token: tokenOf(t, answered.Location)})); page.Status != 200 {
		t.Errorf("outcome page %d", page.Status)
	}
	if d := must(c.GetPayment(ctx, p1.ID)); d.Status != api.PaymentStatusRECEIVED || d.Account.ID != acct.ID {
		t.Fatalf("paid at the mock bank: %s on %s", d.Status, d.Account.ID)
	}
	if s := must(c.GetNameMatchScore(ctx, p1.ID, &api.GetNameMatchScoreParams{AllowInitials: client.Ptr(true)})); s.Score < 0.9 {
		t.Errorf("name match %+v", s)
	}
	if s := must(c.GetLegacyNameMatchScore(ctx, p1.ID, nil)); s.NameMatchScore < 0.9 {
		t.Errorf("legacy name match %+v", s)
	}

	// A refund of part of it.
	refund := must(c.RequestRefund(ctx, p1.ID, api.RefundRequest{Amount: client.Ptr[int64](300), ExternalReference: "RMA-1"}, nil))
	if refund.Amount != 300 || refund.PaymentID != p1.ID {
		t.Errorf("refund %+v", refund)
	}
	if rs := must(c.ListPaymentRefunds(ctx, p1.ID)); len(rs) != 1 || rs[0].ID != refund.ID {
		t.Errorf("refunds %+v", rs)
	}
	// The same through the legacy API.
	if lr := must(c.RequestLegacyRefund(ctx, p1.ID, api.RefundRequest{Amount: client.Ptr[int64](100), ExternalReference: "RMA-L"}, nil)); lr.PaymentID != p1.ID || lr.Amount != 100 {
		t.Errorf("legacy refund %+v", lr)
	}
	// The bank settles a refund after the request (a job): CONFIRMED soon.
	eventually(t, "the refund confirmed", func() bool { return must(c.GetRefund(ctx, refund.ID)).Status == api.RefundStatusCONFIRMED })
	// The refund went to the mock bank as a pain.001 file, answered by a pain.002.
	var pain001 string
	for f, err := range c.AllSandboxBankFiles(ctx, &api.ListSandboxBankFilesParams{Direction: client.Ptr(api.ListSandboxBankFilesParamsDirectionOUT)}) {
		if err != nil {
			t.Fatal(err)
		}
		if f.Message == "pain.001.001.10" {
			pain001 = f.ID
		}
	}
	if pain001 == "" {
		t.Error("the mock bank's files hold no pain.001 of the refund")
	} else {
		xml := must(io.ReadAll(must(c.GetSandboxBankFile(ctx, pain001))))
		if !bytes.Contains(xml, []byte("urn:iso:std:iso:20022:tech:xsd:pain.001.001.10")) || !bytes.Contains(xml, []byte("<EndToEndId>")) {
			t.Errorf("the pain.001 file: %.300s", xml)
		}
	}

	// A payment with a beneficiary, authorised without a browser.
	p2 := must(c.CreatePayment(ctx, euPayment(700, "Order 2", true), &api.CreatePaymentParams{IdempotencyKey: client.Ptr("order-2")}))
	if again := must(c.CreatePayment(ctx, euPayment(700, "Order 2", true), &api.CreatePaymentParams{IdempotencyKey: client.Ptr("order-2")})); again.ID != p2.ID {
		t.Errorf("the same Idempotency-Key created %s and %s", p2.ID, again.ID)
	}
	if a := must(c.AuthoriseSandboxPayment(ctx, p2.ID, api.SandboxAuthoriseRequest{Outcome: "REFUSED_BY_BANK"})); a.Status != api.PaymentStatusREFUSEDBYBANK {
		t.Errorf("authorised as REFUSED_BY_BANK: %s", a.Status)
	}
	_, err = c.AuthoriseSandboxPayment(ctx, p2.ID, api.SandboxAuthoriseRequest{Outcome: "COMPLETED"})
	if !client.IsCode(err, api.ErrorCodeRESOURCENOTMODIFIABLE) {
		t.Errorf("authorising an ended payment: %v", err)
	}
	// Validation: every failing field, typed.
	bad := euPayment(0, "Order 3", true)
	bad.Currency = "GBP"
	_, err = c.CreatePayment(ctx, bad, nil)
	if !errors.As(err, &e) || e.Code != api.ErrorCodeVALIDATIONFAILURE || len(e.Fields) < 2 || e.TraceID == "" {
		t.Errorf("invalid payment: %v", err)
	}
	page := must(c.ListPayments(ctx, &api.ListPaymentsParams{Limit: client.Ptr[int64](1)}))
	if page.TotalItems != 2 || page.PageCount != 2 || len(page.Items) != 1 || page.Page != 1 || page.Last() {
		t.Errorf("page 1 of payments: total %d, pages %d, %d items", page.TotalItems, page.PageCount, len(page.Items))
	}
	allPaymentsByCursor(ctx, t, c, rec, page, sorted(p1.ID, p2.ID))

	// The sandbox clock; after a reset the SDK signs in again by itself.
	clk := must(c.GetSandboxClock(ctx))
	if moved := must(c.AdvanceSandboxClockBy(ctx, time.Hour)); moved.OffsetSeconds != clk.OffsetSeconds+3600 {
		t.Errorf("advanced %+v from %+v", moved, clk)
	}
	c2 := newClient(t, env.URL, apptest.Merchant, rec) // a token issued an hour ahead
	must(c2.GetSandboxClock(ctx))
	if reset := must(c.ResetSandboxClock(ctx)); reset.OffsetSeconds != 0 {
		t.Errorf("reset %+v", reset)
	}
	signIns := rec.count("createToken")
	if back := must(c2.GetSandboxClock(ctx)); back.OffsetSeconds != 0 {
		t.Errorf("after the reset %+v", back)
	}
	if rec.count("createToken") != signIns+1 {
		t.Errorf("the refused token was not replaced by one sign-in: %d -> %d", signIns, rec.count("createToken"))
	}

	// Funds on the Connect account that match nothing.
	must(0, c.Payin(ctx, api.SimulatedIncomingTransaction{ExternalPaymentID: "sdk-1", PaymentReference: client.Ptr("no such order"),
		Amount:      api.SimulatedIncomingAmount{Amount: 5000, Currency: "EUR"},
		Beneficiary: api.SimulatedIncomingBeneficiary{AccountIdentifiers: api.SimulatedIncomingBeneficiaryIdentifiers{IBAN: acct.IBAN}}}))

	// Legacy API and the embedded checkout.
	legacy := must(c.CreateLegacyPayment(ctx, api.LegacyPaymentRequest{CurrencyCode: "EUR", Amount: client.Ptr[int64](990), Type: api.PaymentTypeBILL,
		Beneficiary: &api.LegacyBeneficiary{Name: "Test Shop GmbH", IBAN: payeeIBAN}}, nil))
	if legacy.ID == "" || !strings.Contains(legacy.CheckoutURL, "/checkout/"+legacy.ID) {
		t.Errorf("legacy payment %+v", legacy)
	}
	if lp := must(c.GetLegacyPayment(ctx, legacy.ID)); lp.Status != api.PaymentStatusNEWPAYMENT || lp.Amount != 990 || lp.Currency != "EUR" {
		t.Errorf("legacy read %+v", lp)
	}
	if lc := must(c.CancelLegacyPayment(ctx, legacy.ID)); lc.PaymentID != legacy.ID || lc.Status != api.PaymentStatusABANDONEDBYUSER {
		t.Errorf("legacy cancel %+v", lc)
	}
	_, err = c.CreateLegacyPayment(ctx, api.LegacyPaymentRequest{CurrencyCode: "EUR", Amount: client.Ptr[int64](0)}, nil)
	if !errors.As(err, &e) || e.StatusCode != 422 || e.Code != "" || len(e.Fields) == 0 || e.Fields[0].PropertyPath == "" {
		t.Errorf("a legacy validation error: %#v", err)
	}
	dropin := must(c.CreateDropin(ctx, api.DropinRequest{CurrencyCode: "EUR", Amount: client.Ptr[int64](1200), Origin: "https://shop.example",
		Beneficiary: &api.LegacyBeneficiary{Name: "Test Shop GmbH", IBAN: payeeIBAN}}, nil))
	embed := must(anon.StartEmbeddedCheckout(ctx, dropin.ID, api.StartEmbeddedCheckoutParams{Token: dropin.Token, Origin: client.Ptr("https://shop.example")}))
	if embed.Status != http.StatusSeeOther || !strings.Contains(embed.Location, "/checkout/"+dropin.ID) {
		t.Errorf("embedded checkout: %+v", embed)
	}

	// Notifications: the delivery log, a test, a redelivery.
	test := must(c.SendTestNotification(ctx))
	if test.Status != api.NotificationStatusDELIVERED || test.Attempts == nil || len(*test.Attempts) != 1 {
		t.Errorf("test notification %+v", test)
	}
	var gateway api.Notification
	eventually(t, "p1's notifications", func() bool {
		for n, err := range c.AllNotifications(ctx, &api.ListNotificationsParams{PaymentID: &p1.ID, Limit: client.Ptr[int64](2)}) {
			if err != nil {
				t.Fatal(err)
			}
			if n.Type == "gateway" && n.Status == api.NotificationStatusDELIVERED {
				gateway = n
				return true
			}
		}
		return false
	})
	got := must(c.GetNotification(ctx, gateway.ID))
	if got.Attempts == nil || !(*got.Attempts)[0].Success {
		t.Errorf("notification %+v", got)
	}
	if again := must(c.RedeliverNotification(ctx, gateway.ID)); again.Status != api.NotificationStatusPENDING {
		t.Errorf("redelivered %+v", again)
	}
	if page := must(c.ListNotifications(ctx, nil)); page.TotalItems < 3 {
		t.Errorf("delivery log %+v", page)
	}
	if r := must(c.ResumeNotifications(ctx)); r.ClientID != apptest.Merchant.ClientID || r.Resumed {
		t.Errorf("resume %+v", r)
	}
	// The sandbox inbox, as a receiver: a signed notification and a forged one.
	body := []byte(`{"payment":"x","status":"COMPLETED"}`)
	timed := notification.FormatTimed(time.Now())
	h := http.Header{"User-Agent": {notification.UserAgent}, notification.HeaderTimed: {timed},
		notification.HeaderNotificationID: {"00000000-0000-4000-8000-00000000beef"},
		notification.HeaderSigned:         {notification.Sign(apptest.NotificationSecrets["shop-client"], body, timed, notification.Version)}}
	must(0, anon.ReceiveSandboxNotification(ctx, "shop-client", h, body))
	h.Set(notification.HeaderSigned, strings.Repeat("0", 64))
	if err := anon.ReceiveSandboxNotification(ctx, "shop-client", h, body); client.StatusCode(err) != 400 {
		t.Errorf("a forged notification: %v", err)
	}
	inbox := collect(t, c.AllSandboxInbox(ctx, nil))
	if len(inbox) != 2 || inbox[0].SignatureValid || !inbox[1].SignatureValid {
		t.Errorf("inbox %+v", inbox)
	}
	if p := must(c.ListSandboxInbox(ctx, &api.ListSandboxInboxParams{Limit: client.Ptr[int64](1)})); p.TotalItems != 2 || len(p.Items) != 1 {
		t.Errorf("inbox page %+v", p)
	}

	mandateTour(t, c)
	reportTour(t, c, acct.ID)
	ledgerTour(t, c, acct.ID)
	chaosTour(t, env, c, rec)
}

// chaosTour is the webhook chaos settings, the secret rotation and, last
// (they change the whole instance), snapshot, reset and restore.
func chaosTour(t *testing.T, env *apptest.Env, c *client.Client, rec *recorder) {
	ctx := t.Context()
	if ch := must(c.GetNotificationChaos(ctx)); ch.ClientID != apptest.Merchant.ClientID || ch.DuplicatePercent != 0 {
		t.Errorf("chaos before any setting %+v", ch)
	}
	set := api.NotificationChaosSettings{DuplicatePercent: client.Ptr[int64](25), Seed: client.Ptr[int64](7)}
	if ch := must(c.SetNotificationChaos(ctx, set)); ch.DuplicatePercent != 25 || ch.Seed != 7 || ch.DelayPercent != 0 {
		t.Errorf("chaos set %+v", ch)
	}
	if _, err := c.SetNotificationChaos(ctx, api.NotificationChaosSettings{DuplicatePercent: client.Ptr[int64](101)}); client.StatusCode(err) != 422 {
		t.Errorf("a share of 101%%: %v", err)
	}
	rot := must(c.RotateNotificationSecret(ctx, api.NotificationSecretRotation{OverlapSeconds: 3600}))
	if rot.NotificationSecret == "" || rot.NotificationSecret == apptest.NotificationSecrets[apptest.Merchant.ClientID] || rot.PreviousSecretValidUntil == nil {
		t.Errorf("rotation %+v", rot)
	}

	admin := newClient(t, env.URL, apptest.PSPAdmin, rec)
	if _, err := c.ResetSandbox(ctx, nil); client.StatusCode(err) != 403 {
		t.Errorf("a merchant resets its tree: %v", err)
	}
	instance := &api.ResetSandboxParams{Scope: client.Ptr(api.SandboxScopeINSTANCE)}
	if _, err := admin.ResetSandbox(ctx, instance); client.StatusCode(err) != 403 {
		t.Errorf("a tenant's ADMIN resets the instance: %v", err)
	}
	snap := must(admin.GetSandboxSnapshot(ctx, nil))
	file, err := io.ReadAll(snap)
	snap.Close()
	if err != nil || !bytes.Contains(file, []byte("payments")) {
		t.Fatalf("snapshot: %v, %d bytes", err, len(file))
	}
	reset := must(admin.ResetSandbox(ctx, nil))
	if reset.SchemaVersion == 0 || reset.Scope != api.SandboxScopeTREE {
		t.Errorf("reset %+v", reset)
	}
	if p := must(c.ListPayments(ctx, nil)); p.TotalItems != 0 {
		t.Errorf("%d payments after a reset", p.TotalItems)
	}
	restored := must(admin.RestoreSandbox(ctx, file, nil))
	if restored.SchemaVersion != reset.SchemaVersion || restored.Rows <= reset.Rows {
		t.Errorf("restore %+v after reset %+v", restored, reset)
	}
	if p := must(c.ListPayments(ctx, nil)); p.TotalItems == 0 {
		t.Error("no payments after restoring the snapshot")
	}
}
