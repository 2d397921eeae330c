package checkout

import (
	"net/url"
	"strings"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/payment"
)

// outcomeView is how the final page explains a payment's status.
type outcomeView struct {
	Kind    string // success, pending, failure, cancel, open: the CSS class and the return URL chosen
	Heading string
	Text    string
}

// outcomeOf explains p's status to the payer.
func outcomeOf(p payment.Payment) outcomeView {
	switch p.Status {
	case payment.StatusCompleted, payment.StatusReceived, payment.StatusSettled, payment.StatusNotReceived:
		return outcomeView{"success", "Payment complete", "Your bank accepted the payment. You can close this page."}
	case payment.StatusDelayedAtBank, payment.StatusAuthorisedByUser:
		return outcomeView{"pending", "Payment pending", "Your bank is still processing the payment. The merchant will be told as soon as it answers."}
	case payment.StatusCancelledByUser:
		return outcomeView{"cancel", "Payment cancelled", "You cancelled the payment. No money was taken."}
	case payment.StatusAbandonedByUser:
		return outcomeView{"cancel", "Payment expired", "This payment was not finished in time. No money was taken; ask the merchant for a new payment link."}
	case payment.StatusRefusedByBank:
		return outcomeView{"failure", "Payment refused", "Your bank refused the payment. No money was taken."}
	case payment.StatusErrorAtBank:
		return outcomeView{"failure", "Payment failed", "Your bank could not process the payment because of a technical problem. No money was taken."}
	case payment.StatusRefusedByRisk:
		return outcomeView{"failure", "Payment not possible", "This payment cannot be made. No money was taken."}
	}
	return outcomeView{"open", "Payment not finished", "You have not authorised this payment at your bank yet."}
}

// unreachableOutcome explains a payment that ended because bankrail cannot
// reach the payer's bank b (payment.BankUnreachable).
func unreachableOutcome(b bank.Bank) outcomeView {
	name := b.Name
	if name == "" {
		name = "Your bank"
	}
	return outcomeView{"failure", "Your bank is not available",
		name + " cannot be reached for online payments here yet, so this payment could not be made. No money was taken. " +
			"Please go back to the merchant and choose another way to pay."}
}

// unreachableReturnURL is where the payer of a payment that ended because
// its bank cannot be reached goes back to the merchant: the failure URL
// (else unified), else the cancel URL; empty when the merchant gave none.
func unreachableReturnURL(p payment.Payment) string {
	if u := returnURL(p, "failure"); u != "" {
		return u
	}
	return returnURL(p, "cancel")
}

// returnURL is the merchant's return address for p's outcome (the URL of
// the outcome, else the unified one) with the merchant's queryString
// appended; empty when the merchant gave none.
func returnURL(p payment.Payment, kind string) string {
	c := p.Request.Communication
	if c == nil || c.Return == nil || c.Return.URLs == nil {
		return ""
	}
	u := c.Return.URLs
	byKind := map[string]*payment.URL{"success": u.Success, "pending": u.Pending, "failure": u.Failure, "cancel": u.Cancel}
	target := byKind[kind]
	if target == nil || target.URL == "" {
		target = u.Unified
	}
	if target == nil || target.URL == "" {
		return ""
	}
	return appendQuery(target.URL, c.Return.QueryString)
}

// appendQuery adds a raw query string to an address that may have one.
func appendQuery(address, query string) string {
	query = strings.TrimLeft(query, "?&")
	if query == "" {
		return address
	}
	u, err := url.Parse(address)
	if err != nil {
		return address
	}
	if u.RawQuery == "" {
		u.RawQuery = query
	} else {
		u.RawQuery += "&" + query
	}
	return u.String()
}
