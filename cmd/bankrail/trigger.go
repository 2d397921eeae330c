package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/client"
)

const triggerHelp = `Usage: bankrail trigger [flags] <outcome>

Creates a payment on a running sandbox and drives it to <outcome>, printing each step, so that
your integration sees the notifications of that outcome. Uses the profile of 'bankrail login'.

Outcomes (any case):
  COMPLETED, REFUSED_BY_BANK, ERROR_AT_BANK, CANCELLED_BY_USER, ABANDONED_BY_USER, REFUSED_BY_RISK
                     the payer's and the bank's part, played by POST /sandbox/payments/{id}/authorise
  DELAYED_AT_BANK>COMPLETED, DELAYED_AT_BANK>REFUSED_BY_BANK
                     the bank answers 2 minutes later: the sandbox clock is advanced 2 minutes
  RECEIVED           COMPLETED on a payment expected on your Connect account: the funds arrive
  NOT_RECEIVED       COMPLETED but the funds never arrive: the sandbox clock is advanced past the
                     scheme's timeframe (1 day for Faster Payments and SEPA Instant, 8 for SEPA
                     Credit Transfer, the scheme of a payment authorised without a bank)
  refund             a RECEIVED payment, then a refund of all of it
                     (--scenario REFUND_REJECTED rejects it; --amount 1177 makes it fail)
  payout             a payout out of your Connect account, topped up first (POST /payin) when its
                     available balance is short (--scenario ACCOUNT_HOLDER_VERIFICATION_CLOSE_MATCH,
                     ..._NO_MATCH or ..._ERROR holds it; PAYOUT_REJECTED or --amount 2570 rejects it,
                     --amount 1570 fails it)

RECEIVED, NOT_RECEIVED, refund and payout need a Connect account in the currency (the sandbox demo
merchant has one in EUR and in GBP). Moving the sandbox clock moves it for your whole tenant.
`

// triggerOutcomes are the outcomes trigger plays besides the sandbox's own.
var triggerOutcomes = []string{"RECEIVED", "NOT_RECEIVED", "REFUND", "PAYOUT"}

// sandboxOutcomes are the outcomes of POST /sandbox/payments/{id}/authorise.
var sandboxOutcomes = []api.SandboxOutcome{"COMPLETED", "REFUSED_BY_BANK", "ERROR_AT_BANK", "CANCELLED_BY_USER", "ABANDONED_BY_USER",
	"REFUSED_BY_RISK", "DELAYED_AT_BANK>COMPLETED", "DELAYED_AT_BANK>REFUSED_BY_BANK"}

// outcomeList names every outcome trigger plays, as its help does.
func outcomeList() string {
	names := make([]string, 0, len(sandboxOutcomes)+len(triggerOutcomes))
	for _, o := range sandboxOutcomes {
		names = append(names, string(o))
	}
	for _, o := range triggerOutcomes {
		if o == "REFUND" || o == "PAYOUT" {
			o = strings.ToLower(o)
		}
		names = append(names, o)
	}
	return strings.Join(names, ", ")
}

// trigger serves `bankrail trigger`.
func trigger(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var conn connection
	t := triggerRun{}
	fs := newFlagSet("trigger", triggerHelp)
	conn.bind(fs)
	fs.Int64Var(&t.amount, "amount", 1050, "amount in minor units (1050 is 10.50)")
	fs.StringVar(&t.currency, "currency", "EUR", "EUR (SEPA, OPEN_BANKING_EU) or GBP (Faster Payments, OPEN_BANKING_UK)")
	fs.StringVar(&t.scenario, "scenario", "", "X-Service-Testing-Scenario of the refund or payout (see the outcomes)")
	fs.DurationVar(&t.timeout, "timeout", 30*time.Second, "how long to wait for a move that follows later")
	fs.BoolVar(&t.out.json, "json", false, "print one JSON object per step (for scripts)")
	positional, err := parseArgs(fs, args)
	if err == nil && len(positional) != 1 {
		err = fmt.Errorf("name one outcome, e.g. bankrail trigger COMPLETED")
	}
	outcome := ""
	if err == nil {
		outcome = strings.ToUpper(positional[0])
		if !slices.Contains(triggerOutcomes, outcome) && !slices.Contains(sandboxOutcomes, api.SandboxOutcome(outcome)) {
			err = fmt.Errorf("unknown outcome %q; the outcomes are %s", positional[0], outcomeList())
		}
	}
	if err == nil && t.currency != "EUR" && t.currency != "GBP" {
		err = fmt.Errorf("--currency must be EUR or GBP, got %q", t.currency)
	}
	if err != nil {
		return exitCode(fs, err, stdout, stderr)
	}
	p, err := conn.resolve()
	if err == nil {
		t.c, err = profileClient(p)
	}
	if err == nil {
		t.out.w = stdout
		switch outcome {
		case "REFUND":
			err = t.refund(ctx)
		case "PAYOUT":
			err = t.payout(ctx)
		default:
			_, err = t.payment(ctx, outcome)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "bankrail:", err)
		return 1
	}
	return 0
}

// triggerRun is one `bankrail trigger`.
type triggerRun struct {
	c        *client.Client
	out      steps
	amount   int64
	currency string
	scenario string
	timeout  time.Duration
}

// account is the caller's ACTIVE Connect account in the run's currency,
// or nil; needed makes its absence an error naming why.
func (t *triggerRun) account(ctx context.Context, needed string) (*api.Account, error) {
	for a, err := range t.c.AllAccounts(ctx, &api.ListAccountsParams{Currency: &t.currency}) {
		if err != nil {
			return nil, err
		}
		if a.Status == "ACTIVE" {
			return &a, nil
		}
	}
	if needed != "" {
		return nil, fmt.Errorf("%s needs a Connect account in %s, and this user's customer has none (the sandbox demo merchant has one; "+
			"an operator opens one with `bankrail account create`)", needed, t.currency)
	}
	return nil, nil
}

// triggerReference is a payment reference for this run, valid on both schemes
// (Faster Payments allows 18 characters).
func triggerReference() string { return "Trigger " + strings.ReplaceAll(uuid.NewString(), "-", "")[:8] }

// paymentRequest is the payment the run creates; without a Connect account
// it names a beneficiary.
func (t *triggerRun) paymentRequest(acct *api.Account) api.PaymentCreateRequest {
	req := api.PaymentCreateRequest{Currency: t.currency, Amount: &t.amount, PaymentReference: client.Ptr(triggerReference()),
		InternalReference: client.Ptr("bankrail-trigger"),
		Payer:             &api.Payer{FirstName: client.Ptr("Anna"), LastName: client.Ptr("Müller")}}
	typ := client.Ptr(api.PaymentTypeGOODS)
	if t.currency == "GBP" {
		req.PaymentSystem, req.OpenBankingUK = api.PaymentSystemOPENBANKINGUK, &api.OpenBankingUKRequest{Type: typ}
		if acct == nil {
			req.Beneficiary = &api.Beneficiary{Name: "Test Shop Ltd", AccountIdentifiers: &api.AccountIdentifiers{
				SortCode: client.Ptr("404784"), AccountNumber: client.Ptr("70872490")}}
		}
	} else {
		req.PaymentSystem, req.OpenBankingEU = api.PaymentSystemOPENBANKINGEU, &api.OpenBankingEURequest{Type: typ}
		if acct == nil {
			req.Beneficiary = &api.Beneficiary{Name: "Test Shop GmbH", AccountIdentifiers: &api.AccountIdentifiers{IBAN: client.Ptr("DE89370400440532013000")}}
		}
	}
	return req
}

// timeframeDays is how many days after COMPLETED an expected payment whose
// funds never came is NOT_RECEIVED (docs/connect.md).
func timeframeDays(t api.TransferType) int {
	switch t {
	case "Faster Payments", "SEPA Instant Credit Transfer":
		return 1
	}
	return 8
}

// payment creates a payment and drives it to outcome (a sandbox outcome,
// RECEIVED or NOT_RECEIVED); it returns the payment as it ends.
func (t *triggerRun) payment(ctx context.Context, outcome string) (*api.PaymentDetails, error) {
	needs := ""
	authorise := api.SandboxOutcome(outcome)
	switch outcome {
	case "RECEIVED":
		needs, authorise = outcome, "COMPLETED"
	case "NOT_RECEIVED":
		needs, authorise = outcome, "COMPLETED>NOT_RECEIVED"
	}
	acct, err := t.account(ctx, needs)
	if err != nil {
		return nil, err
	}
	p, err := t.c.CreatePayment(ctx, t.paymentRequest(acct), nil)
	if err != nil {
		return nil, err
	}
	expected := ""
	if acct != nil {
		expected = fmt.Sprintf(", expected on the Connect account %s (%s)", acct.IBAN, acct.Nickname)
	}
	t.out.print("payment_created", map[string]any{"payment": p}, "Payment %s created: %s, %s%s",
		p.ID, formatMoney(p.Amount, p.Currency), p.Status, expected)
	a, err := t.c.AuthoriseSandboxPayment(ctx, p.ID, api.SandboxAuthoriseRequest{Outcome: authorise})
	if err != nil {
		return nil, err
	}
	t.out.print("authorised", map[string]any{"outcome": authorise, "payment": a},
		"Authorised in the sandbox as %s: the payment is %s", authorise, a.Status)
	switch {
	case strings.HasPrefix(string(authorise), "DELAYED_AT_BANK>"):
		if err := t.advance(ctx, 2*time.Minute, "the bank answers 2 minutes later"); err != nil {
			return nil, err
		}
		if _, err := t.await(ctx, p.ID, func(s api.PaymentStatus) bool { return s != "DELAYED_AT_BANK" }); err != nil {
			return nil, err
		}
	case outcome == "NOT_RECEIVED":
		days := timeframeDays(a.TransferType)
		if err := t.advance(ctx, time.Duration(days)*24*time.Hour,
			fmt.Sprintf("the %d-day timeframe of %s passes without the funds", days, a.TransferType)); err != nil {
			return nil, err
		}
		if _, err := t.await(ctx, p.ID, func(s api.PaymentStatus) bool { return s == "NOT_RECEIVED" }); err != nil {
			return nil, err
		}
	}
	d, err := t.c.GetPayment(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	history := make([]string, 0, len(d.StatusUpdates))
	for _, u := range d.StatusUpdates {
		history = append(history, string(u.NewStatus))
	}
	t.out.print("payment", map[string]any{"payment": d}, "Payment %s: %s", d.ID, strings.Join(history, " -> "))
	return d, nil
}

// advance moves the sandbox clock by d and says why.
func (t *triggerRun) advance(ctx context.Context, d time.Duration, why string) error {
	clk, err := t.c.AdvanceSandboxClockBy(ctx, d)
	if err != nil {
		return fmt.Errorf("advance the sandbox clock: %w", err)
	}
	t.out.print("clock_advanced", map[string]any{"seconds": int64(d / time.Second), "clock": clk},
		"Advanced the sandbox clock by %s (%s): it is now %s", d, why, clk.Now.UTC().Format(time.RFC3339))
	return nil
}

// await polls the payment until done(status) holds or the run's timeout
// passes.
func (t *triggerRun) await(ctx context.Context, id string, done func(api.PaymentStatus) bool) (*api.PaymentDetails, error) {
	var d *api.PaymentDetails
	err := pollUntil(ctx, t.timeout, func() (bool, error) {
		var err error
		d, err = t.c.GetPayment(ctx, id)
		return err == nil && done(d.Status), err
	})
	if errors.Is(err, errTimeout) {
		return d, fmt.Errorf("payment %s is still %s after %s", id, d.Status, t.timeout)
	}
	return d, err
}

var errTimeout = errors.New("timed out")

// pollUntil calls check every 100 ms until it reports done, fails, or timeout
// passes (errTimeout).
func pollUntil(ctx context.Context, timeout time.Duration, check func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		done, err := check()
		if err != nil || done {
			return err
		}
		if time.Now().After(deadline) {
			return errTimeout
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// refund drives a payment to RECEIVED and refunds all of it.
func (t *triggerRun) refund(ctx context.Context) error {
	d, err := t.payment(ctx, "RECEIVED")
	if err != nil {
		return err
	}
	if d.Status != "RECEIVED" {
		return fmt.Errorf("payment %s is %s, not RECEIVED: nothing to refund", d.ID, d.Status)
	}
	var params *api.RequestRefundParams
	if t.scenario != "" {
		params = &api.RequestRefundParams{XServiceTestingScenario: client.Ptr(api.RequestRefundParamsXServiceTestingScenario(t.scenario))}
	}
	r, err := t.c.RequestRefund(ctx, d.ID, api.RefundRequest{ExternalReference: "bankrail trigger"}, params)
	if err != nil {
		return err
	}
	t.out.print("refund_created", map[string]any{"refund": r}, "Refund %s of %s requested: %s", r.ID, formatMoney(r.Amount, r.Currency), r.Status)
	err = pollUntil(ctx, t.timeout, func() (bool, error) {
		var err error
		r, err = t.c.GetRefund(ctx, r.ID)
		return err == nil && r.Status != "PENDING", err
	})
	if err != nil && !errors.Is(err, errTimeout) {
		return err
	}
	t.out.print("refund", map[string]any{"refund": r}, "Refund %s: %s", r.ID, r.Status)
	return nil
}

// payout pays out of the Connect account, topping it up first when short.
func (t *triggerRun) payout(ctx context.Context) error {
	acct, err := t.account(ctx, "a payout")
	if err != nil {
		return err
	}
	if short := t.amount - acct.Balance.Available; short > 0 {
		err := t.c.Payin(ctx, api.SimulatedIncomingTransaction{ExternalPaymentID: "bankrail-trigger-" + uuid.NewString(),
			PaymentReference: client.Ptr("bankrail trigger top-up"), Amount: api.SimulatedIncomingAmount{Amount: short, Currency: t.currency},
			Sender:      &api.SimulatedIncomingSender{Name: client.Ptr("bankrail trigger")},
			Beneficiary: api.SimulatedIncomingBeneficiary{AccountIdentifiers: api.SimulatedIncomingBeneficiaryIdentifiers{IBAN: acct.IBAN}}})
		if err != nil {
			return fmt.Errorf("top up the account: %w", err)
		}
		t.out.print("topped_up", map[string]any{"accountId": acct.ID, "amount": short, "currency": t.currency},
			"Topped up the Connect account %s by %s (POST /payin): it had %s available", acct.IBAN, formatMoney(short, t.currency),
			formatMoney(acct.Balance.Available, t.currency))
	}
	req := api.PayoutRequest{AccountID: acct.ID, Amount: t.amount, Currency: t.currency, PaymentReference: triggerReference(),
		Beneficiary: api.PayoutBeneficiary{Name: "Jane Doe", AccountIdentifiers: api.PayoutAccountIdentifiers{IBAN: client.Ptr("DE89370400440532013000")}}}
	if t.currency == "GBP" {
		req.Beneficiary.AccountIdentifiers = api.PayoutAccountIdentifiers{SortCode: client.Ptr("404784"), AccountNumber: client.Ptr("70872490")}
	}
	var params *api.CreatePayoutParams
	if t.scenario != "" {
		params = &api.CreatePayoutParams{XServiceTestingScenario: client.Ptr(api.CreatePayoutParamsXServiceTestingScenario(t.scenario))}
	}
	po, err := t.c.CreatePayout(ctx, req, params)
	if err != nil {
		return err
	}
	t.out.print("payout_created", map[string]any{"payout": po}, "Payout %s of %s to %s created: %s", po.ID, formatMoney(po.Amount, po.Currency),
		po.Beneficiary.Name, po.Status)
	v, err := t.c.GetAccountHolderVerification(ctx, po.AccountHolderVerificationID)
	if err != nil {
		return err
	}
	returned := "no name"
	if v.AccountHolderName.Returned != nil {
		returned = fmt.Sprintf("%q", *v.AccountHolderName.Returned)
	}
	t.out.print("verification", map[string]any{"verification": v}, "Account holder verification %s: %s (asked %q, the bank reports %s)",
		v.ID, v.Result, v.AccountHolderName.Requested, returned)
	if v.Result != "MATCH" {
		t.out.print("held", map[string]any{"payout": po, "verification": v},
			"The payout is held (%s) until a decision: POST /account-holder-verifications/%s/approve or /reject", po.Status, v.ID)
		return nil
	}
	err = pollUntil(ctx, t.timeout, func() (bool, error) {
		var err error
		po, err = t.c.GetPayout(ctx, po.ID)
		return err == nil && po.Status != "CREATED" && po.Status != "PROCESSING", err
	})
	if err != nil && !errors.Is(err, errTimeout) {
		return err
	}
	t.out.print("payout", map[string]any{"payout": po}, "Payout %s: %s", po.ID, po.Status)
	return nil
}
