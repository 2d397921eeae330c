package xs2a

import (
	"context"
	"net/url"
	"time"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/clock"
)

// The decoupled SCA approach: the payer authorises the payment in the
// bank's app, not on a page the bank redirects to. bankrail asks for it
// with TPP-Redirect-Preferred: false (Bank.Decoupled); a bank that takes it
// answers the initiation without _links.scaRedirect, with _links.scaStatus
// (the authorisation started implicitly) and a psuMessage for the payer.
// The payer waits on bankrail's page (bank.Authorisation.WaitURL), which
// asks Answer until the bank has answered; the poll job reads the status
// too, for a payer who closed the page. A bank that wants the TPP to start
// the authorisation explicitly (_links.startAuthorisation only) is not
// supported: its initiation fails like one without any link.

// approachOf is the SCA approach of an initiation answer: REDIRECT with
// _links.scaRedirect, DECOUPLED with _links.scaStatus and no redirect, ""
// when bankrail cannot authorise it.
func approachOf(r InitiationResponse) string {
	switch {
	case r.Links.SCARedirect != nil && r.Links.SCARedirect.Href != "":
		return SCARedirect
	case r.Links.SCAStatus != nil && r.Links.SCAStatus.Href != "":
		return SCADecoupled
	}
	return ""
}

// Decoupled reports whether the payer authorises in at the bank's app.
func (in Initiation) Decoupled() bool { return in.Approach == SCADecoupled }

// waiting reports whether a reading of a decoupled initiation says the
// payer has not answered in the app yet: RCVD, read without failure.
func waiting(in Initiation, r Reading) bool {
	return in.Decoupled() && !r.Failed && !r.Nok && r.Phase == Received
}

// message is what the bank asks of the payer of in: the reading's
// psuMessage, else the initiation's.
func message(in Initiation, r Reading) string {
	if r.PSUMessage != "" {
		return r.PSUMessage
	}
	return in.PSUMessage
}

// AppFailureWindow is how long the bank of a decoupled authorisation may
// fail to tell the status (a timeout, a 5xx, an unreadable or unknown
// answer) while its payer waits on bankrail's page before the payment
// ends ERROR_AT_BANK: the page asks every few seconds, so a bank's blip
// of a few seconds meets several failed reads (docs/decisions.md, "The
// waiting page rides out a bank's blip").
const AppFailureWindow = 2 * time.Minute

// AnswerInApp is Answer for the payer's page that waits for a decoupled
// authorisation (checkout's bank-app page, which asks every few seconds).
// A failed read does not end the payment while the bank has been failing
// for less than AppFailureWindow: the answer is Waiting, as for RCVD. The
// failure is recorded on the initiation (its status empty, its reason
// why: the first failure of a streak sets the initiation's updated time,
// which later failures keep), so that the window runs from the first
// failed read of the streak, whoever read it (this page or the poll job);
// a good reading ends the streak. Past the window the payment ends
// ERROR_AT_BANK as on a redirect's return. Any other initiation is
// answered by Answer.
func (c *Connector) AnswerInApp(ctx context.Context, a bank.Authorisation) (bank.Answer, error) {
	in, err := c.Store.Initiation(ctx, a.PaymentID)
	if err != nil || !in.Decoupled() {
		return c.Answer(ctx, a, url.Values{})
	}
	r, holder := c.readReturn(ctx, in)
	now, err := clock.For(ctx, c.Clock, "")
	if err != nil {
		return bank.Answer{}, err
	}
	if r.Failed {
		since := now
		if failedBefore(in) {
			since = in.UpdatedAt
		} else if err := c.Store.UpdateStatus(ctx, in.PaymentID, "", r.Reason, now); err != nil {
			return bank.Answer{}, err
		}
		if now.Sub(since) < AppFailureWindow {
			c.Log.InfoContext(ctx, "the bank of a decoupled authorisation did not tell its status: the payer waits on",
				"payment", in.PaymentID, "bank", in.BankID, "failingFor", now.Sub(since), "reason", r.Reason)
			return bank.Answer{Waiting: true, Message: in.PSUMessage}, nil
		}
	} else if failedBefore(in) {
		c.record(ctx, in, r) // the streak is over
	}
	if waiting(in, r) {
		return bank.Answer{Waiting: true, Message: message(in, r)}, nil
	}
	if r.Failed || r.Reason != "" {
		c.record(ctx, in, r)
	}
	outcome := OnReturn(r)
	c.Log.InfoContext(ctx, "the bank answered in its app", "payment", in.PaymentID, "bank", in.BankID,
		"transactionStatus", r.Code, "reason", r.Reason, "outcome", outcome)
	ans := bank.Answer{Outcome: outcome}
	if r.Phase == Accepted || r.Phase == Pending {
		ans.Holder = holder
	}
	return ans, nil
}

// failedBefore reports whether the last reading recorded of in is a
// failure (no status, a reason): a streak of failures is running.
func failedBefore(in Initiation) bool { return in.Status == "" && in.Reason != "" }
