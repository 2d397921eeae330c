package xs2a

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/job"
	"github.com/bankrail/bankrail/internal/payment"
)

// Bank is one bank the connector reaches: its client and the products it
// offers, the first of them the one bankrail uses.
type Bank struct {
	ID       string
	Client   Client
	Products []string
	// Decoupled: bankrail asks the bank for the decoupled SCA approach
	// (TPP-Redirect-Preferred: false); the bank may still choose redirect.
	Decoupled bool
}

// product is the payment product bankrail initiates at b.
func (b Bank) product() string {
	if len(b.Products) > 0 {
		return b.Products[0]
	}
	return ProductSEPA
}

// Initiation is a payment initiated at a bank: what the connector keeps.
type Initiation struct {
	PaymentID      string
	BankID         string
	Product        string
	RequestID      string // X-Request-ID of the POST
	ASPSPPaymentID string // the bank's paymentId
	SCARedirect    string // absolute: where the payer authorises it (redirect SCA)
	Approach       string // SCARedirect or SCADecoupled
	PSUMessage     string // what the bank asked of the payer (decoupled SCA: "confirm in the app")
	Status         string // the last transactionStatus read
	Reason         string // the bank's tppMessages, or why the status could not be read
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Store keeps the initiations. It is implemented by internal/store.
type Store interface {
	// Initiation returns the initiation of a payment, errs.NotFound when it
	// has none.
	Initiation(ctx context.Context, paymentID string) (Initiation, error)
	// SaveInitiation records in with jobs in one unit of work. When the
	// payment has an initiation already (two instances started it at once)
	// that one is kept, no job is written, and it is returned.
	SaveInitiation(ctx context.Context, in Initiation, jobs ...job.Job) (Initiation, error)
	// UpdateStatus records the last status read of a payment's initiation.
	UpdateStatus(ctx context.Context, paymentID, status, reason string, at time.Time) error
}

// Payments is what the connector needs of the payments.
type Payments interface {
	// GetByID reads a payment (no caller: the connector acts for the
	// payer who holds its token, or for the poll job).
	GetByID(ctx context.Context, id string) (payment.Payment, error)
}

// Mover applies a bank's answer to a payment (payment.Service.AtBankOutcome).
type Mover func(ctx context.Context, id, token, bankID string, o payment.Outcome, holder string) (payment.Payment, error)

// Connector is the bank.Connector of NextGenPSD2 banks (redirect SCA).
type Connector struct {
	Banks    map[string]Bank // by bank id
	Store    Store
	Payments Payments
	Move     Mover // set before the poll job runs
	Clock    clock.Clock
	Log      *slog.Logger
	// Creditor, when set (the sandbox), is the creditor of a payment that
	// names no beneficiary account; without it such a payment cannot be
	// initiated (the document requires creditorAccount) and ends
	// ERROR_AT_BANK.
	Creditor *Creditor
}

// Creditor is an account that receives payments.
type Creditor struct {
	Name string
	IBAN string
}

var _ bank.Connector = (*Connector)(nil)

// requestIDs is the namespace of the X-Request-ID of an initiation: one
// payment has one, however often its POST is tried.
var requestIDs = uuid.MustParse("6f3c2a52-0d7e-4b7c-9a57-27a1f5f0b8d1")

// RequestID is the X-Request-ID of the initiation of payment id.
func RequestID(paymentID string) string {
	return uuid.NewSHA1(requestIDs, []byte("initiation|"+paymentID)).String()
}

// Start implements bank.Connector: the bank's scaRedirect of the payment,
// initiating it at the bank the first time (POST /v1/payments/{product},
// tried twice with the same X-Request-ID when the first try times out or
// fails with a 5xx). A bank that cannot be reached, or refuses the
// initiation, sends the payer straight back to bankrail (the return URL
// with xs2a=failed), where Answer ends the payment ERROR_AT_BANK.
func (c *Connector) Start(ctx context.Context, a bank.Authorisation) (string, error) {
	in, err := c.Store.Initiation(ctx, a.PaymentID)
	switch {
	case err == nil:
		return c.address(a, in), nil
	case !errs.Is(err, errs.NotFound):
		return "", err
	}
	p, err := c.Payments.GetByID(ctx, a.PaymentID)
	if err != nil {
		return "", err
	}
	in, jobs, err := c.initiation(ctx, a, p)
	switch {
	case err != nil:
		return "", err
	case in.PaymentID == "":
		return failed(a.ReturnURL), nil
	}
	if in, err = c.Store.SaveInitiation(ctx, in, jobs...); err != nil {
		return "", err
	}
	return c.address(a, in), nil
}

// initiate sends the initiation, once more with the same X-Request-ID when
// the first try may not have reached the bank's books.
func (c *Connector) initiate(ctx context.Context, b Bank, h Headers, body PaymentInitiation) (InitiationResponse, error) {
	resp, err := b.Client.Initiate(ctx, b.product(), h, body)
	if err != nil && Retryable(err) && ctx.Err() == nil {
		resp, err = b.Client.Initiate(ctx, b.product(), h, body)
	}
	return resp, err
}

// address is where the payer goes for initiation in: the bank's
// scaRedirect, bankrail's waiting page for a decoupled one, or back to
// bankrail when the bank gave none (it rejected the initiation at once).
func (c *Connector) address(a bank.Authorisation, in Initiation) string {
	if in.Decoupled() && a.WaitURL != "" {
		return a.WaitURL
	}
	if in.SCARedirect == "" {
		return a.ReturnURL
	}
	return in.SCARedirect
}

// Answer implements bank.Connector: the payer is back from the bank (at
// TPP-Redirect-URI, or TPP-Nok-Redirect-URI with nok=1); the payment's
// status is read from the bank (GET .../status) and mapped by OnReturn. A
// bank that cannot say (timeout, 5xx, malformed JSON, an unknown status)
// ends the payment ERROR_AT_BANK: the payer is told, never left waiting.
// For a decoupled initiation the bank has not answered yet (RCVD) the
// answer is Waiting, with the bank's psuMessage: the payer stays on
// bankrail's waiting page.
func (c *Connector) Answer(ctx context.Context, a bank.Authorisation, params url.Values) (bank.Answer, error) {
	in, err := c.Store.Initiation(ctx, a.PaymentID)
	if errs.Is(err, errs.NotFound) {
		return bank.Answer{Outcome: string(payment.StatusErrorAtBank)}, nil // the initiation failed (Start)
	}
	if err != nil {
		return bank.Answer{}, err
	}
	r, holder := c.readReturn(ctx, in)
	r.Nok = params.Get("nok") != ""
	if waiting(in, r) {
		return bank.Answer{Waiting: true, Message: message(in, r)}, nil
	}
	if r.Failed || r.Reason != "" {
		c.record(ctx, in, r) // why the payment failed, for an operator; the payment's move says the rest
	}
	outcome := OnReturn(r)
	c.Log.InfoContext(ctx, "the payer is back from the bank", "payment", in.PaymentID, "bank", in.BankID,
		"transactionStatus", r.Code, "reason", r.Reason, "outcome", outcome)
	ans := bank.Answer{Outcome: outcome}
	if r.Phase == Accepted || r.Phase == Pending {
		ans.Holder = holder
	}
	return ans, nil
}

// readReturn reads in at its bank when the payer is back, and the account
// holder name the bank reports (debtorName, optional in the standard).
// GET .../{paymentId} says both in one call; when it gives no status the
// payment goes on with (none, a failure, an unknown code, no answer), GET
// .../status is read as well, whose tppMessages say why: once when the
// first call timed out or failed with a 5xx (two tries in all, as for a
// status alone), else with its own second try.
func (c *Connector) readReturn(ctx context.Context, in Initiation) (Reading, string) {
	b, ok := c.Banks[in.BankID]
	if !ok || in.ASPSPPaymentID == "" {
		return c.read(ctx, in, 2), ""
	}
	p, err := b.Client.Payment(ctx, in.Product, in.ASPSPPaymentID, uuid.NewString())
	if ph := PhaseOf(p.TransactionStatus); err == nil && (ph == Accepted || ph == Pending) {
		return Reading{Phase: ph, Code: p.TransactionStatus}, truncate(p.DebtorName, payment.MaxHolderNameLength)
	}
	tries := 2
	if err != nil && Retryable(err) {
		tries = 1
	}
	if err != nil {
		c.Log.InfoContext(ctx, "the bank does not show the payment: its status is read", "payment", in.PaymentID, "err", err)
	}
	return c.read(ctx, in, tries), truncate(p.DebtorName, payment.MaxHolderNameLength)
}

// read reads the status of in at its bank, once more (tries 2) when the
// first try may be mended by another; the caller records it when it
// matters (record).
func (c *Connector) read(ctx context.Context, in Initiation, tries int) Reading {
	b, ok := c.Banks[in.BankID]
	if !ok {
		return Reading{Failed: true, Reason: "the bank is no longer in the directory"}
	}
	if in.ASPSPPaymentID == "" {
		return Reading{Phase: PhaseOf(in.Status), Code: in.Status, Reason: in.Reason, Failed: PhaseOf(in.Status) == Unknown}
	}
	st, err := b.Client.Status(ctx, in.Product, in.ASPSPPaymentID, uuid.NewString())
	if err != nil && tries > 1 && Retryable(err) && ctx.Err() == nil {
		st, err = b.Client.Status(ctx, in.Product, in.ASPSPPaymentID, uuid.NewString())
	}
	r := Reading{Phase: PhaseOf(st.TransactionStatus), Code: st.TransactionStatus, Reason: Reason(st.TPPMessages),
		PSUMessage: st.PSUMessage}
	switch {
	case err != nil:
		r = Reading{Failed: true, Reason: err.Error()}
	case r.Phase == Unknown:
		r.Failed, r.Reason = true, fmt.Sprintf("unknown transactionStatus %q", st.TransactionStatus)
	}
	return r
}

// record keeps the last reading of in when it says something new (the
// status, or why it could not be read).
func (c *Connector) record(ctx context.Context, in Initiation, r Reading) {
	if r.Code == in.Status && r.Reason == in.Reason {
		return
	}
	now, err := clock.For(ctx, c.Clock, "")
	if err == nil {
		err = c.Store.UpdateStatus(ctx, in.PaymentID, r.Code, r.Reason, now)
	}
	if err != nil {
		c.Log.WarnContext(ctx, "record a payment's status at its bank", "payment", in.PaymentID, "err", err)
	}
}

// initiationOf is the body of p's initiation: its amount exact in its
// currency's exponent, the beneficiary (the Connect account, for an
// expected payment) as creditor, the payer's IBAN when known, and the
// payment's unique reference, which the rails' statement import matches.
func initiationOf(p payment.Payment, fallback *Creditor) (PaymentInitiation, error) {
	amt, err := FormatAmount(p.Amount(), p.Request.Currency)
	if err != nil {
		return PaymentInitiation{}, err
	}
	creditor := fallback
	if ben := p.Request.Beneficiary; ben != nil && ben.AccountIdentifiers != nil && ben.AccountIdentifiers.IBAN != "" {
		creditor = &Creditor{Name: ben.Name, IBAN: ben.AccountIdentifiers.IBAN}
	}
	if creditor == nil {
		return PaymentInitiation{}, fmt.Errorf("payment %s has no beneficiary IBAN: a NextGenPSD2 initiation needs a creditorAccount", p.ID)
	}
	body := PaymentInitiation{InstructedAmount: amt, CreditorAccount: AccountReference{IBAN: creditor.IBAN},
		CreditorName: truncate(creditor.Name, 70), RemittanceInformationUnstructured: truncate(p.UniqueReference, 140)}
	if body.CreditorName == "" {
		body.CreditorName = "-"
	}
	if payer := p.Request.Payer; payer != nil && payer.AccountIdentifiers != nil && payer.AccountIdentifiers.IBAN != "" {
		body.DebtorAccount = &AccountReference{IBAN: payer.AccountIdentifiers.IBAN}
	}
	return body, nil
}

// psuIP is the payer's IPv4 address (the document's PSU-IP-Address is
// format ipv4): the payment's device's, else the address the payer's
// browser came from (Authorisation.PayerIP), else the unspecified address.
func psuIP(p payment.Payment, a bank.Authorisation) string {
	var candidates []string
	if d := p.Request.Device; d != nil {
		candidates = append(candidates, d.IP)
	}
	for _, c := range append(candidates, a.PayerIP) {
		if ip, err := netip.ParseAddr(c); err == nil && ip.Unmap().Is4() {
			return ip.Unmap().String()
		}
	}
	return "0.0.0.0"
}

// truncate cuts s to n runes.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n])
	}
	return s
}

// failed is the return address that tells Answer the initiation failed.
func failed(returnURL string) string { return withParam(returnURL, "xs2a", "failed") }

// withParam adds a query parameter to an address.
func withParam(address, key, value string) string {
	u, err := url.Parse(address)
	if err != nil {
		return address
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}

// resolve makes a link of the bank absolute against its base URL ("All
// links can be relative or full links, to be decided by the ASPSP").
func resolve(base, href string) string {
	if strings.HasPrefix(href, "http://") || strings.HasPrefix(href, "https://") {
		return href
	}
	b, err := url.Parse(base)
	if err != nil {
		return href
	}
	r, err := b.Parse(href)
	if err != nil {
		return href
	}
	return r.String()
}
