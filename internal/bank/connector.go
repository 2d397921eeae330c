package bank

import (
	"context"
	"fmt"
	"net/url"
)

// Authorisation is the payer's authorisation of one payment at one bank, as
// a connector sees it.
type Authorisation struct {
	PaymentID string
	Bank      Bank
	// Token is the payer's capability for bankrail's pages of the payment:
	// a connector carries it through the bank and back to bankrail.
	Token string
	// ReturnURL is where the bank sends the payer back to bankrail (with
	// the token): the connector's Answer reads the parameters the bank
	// adds to it.
	ReturnURL string
	// WaitURL is bankrail's page where the payer waits while authorising
	// the payment in the bank's app (decoupled SCA), with the token.
	WaitURL string
	// PayerIP is the address the payer's browser came from (the
	// NextGenPSD2 PSU-IP-Address when the payment names no device).
	PayerIP string
}

// Answer is what a bank tells of the payer's authorisation.
type Answer struct {
	// Outcome names the payment statuses the answer brings about, in order,
	// as payment.ParseOutcome reads them: "COMPLETED", "REFUSED_BY_BANK",
	// "ERROR_AT_BANK", "CANCELLED_BY_USER", "DELAYED_AT_BANK>COMPLETED", ...
	Outcome string
	// Holder is the account holder name the bank reports; empty: the
	// payer's name.
	Holder string
	// Waiting: the payer authorises in the bank's app (decoupled SCA) and
	// the bank has not answered yet; Outcome is empty. The payer waits on
	// bankrail's page, which shows Message (the bank's psuMessage).
	Waiting bool
	Message string
}

// Connector is bankrail's way to one or more banks: it starts the payer's
// authorisation of a payment and reads the bank's answer. The mock banks of
// the sandbox are one implementation (internal/checkout); a bank without a
// connector cannot be paid from (docs/checkout.md, "Banks and connectors").
type Connector interface {
	// Start begins the payer's authorisation: the address the payer is
	// sent to (the bank's page). It is called again when the payer comes
	// back to a payment that is still at the bank.
	Start(ctx context.Context, a Authorisation) (string, error)
	// Answer reads the bank's answer from what the payer brings back to
	// bankrail (the parameters of the return to bankrail's pages).
	Answer(ctx context.Context, a Authorisation, params url.Values) (Answer, error)
}

// Connectors maps banks (by id) to the connector that reaches each, and
// holds the sender of transfers out of the Connect accounts (Transfers).
// The zero value and nil have no connector: every lookup misses. It is built
// once at start and read concurrently afterwards.
type Connectors struct {
	byBank    map[string]Connector
	transfers TransferSender // money out of the Connect accounts (transfer.go); nil: none
}

// NewConnectors returns a map without any connector.
func NewConnectors() *Connectors { return &Connectors{byBank: map[string]Connector{}} }

// Connect routes the banks to c. A bank reached by a connector already, an
// empty id or a nil connector is an error: the wiring is wrong.
func (cs *Connectors) Connect(c Connector, banks ...Bank) error {
	if c == nil {
		return fmt.Errorf("connect %d banks: no connector", len(banks))
	}
	seen := map[string]bool{}
	for _, b := range banks {
		if b.ID == "" {
			return fmt.Errorf("connect bank %q: it has no id", b.Name)
		}
		if _, dup := cs.byBank[b.ID]; dup || seen[b.ID] {
			return fmt.Errorf("connect bank %s (%s): it has a connector already", b.ID, b.Name)
		}
		seen[b.ID] = true
	}
	for _, b := range banks {
		cs.byBank[b.ID] = c
	}
	return nil
}

// For returns the connector of the bank with id bankID.
func (cs *Connectors) For(bankID string) (Connector, bool) {
	if cs == nil {
		return nil, false
	}
	c, ok := cs.byBank[bankID]
	return c, ok
}

// Len is how many banks have a connector.
func (cs *Connectors) Len() int {
	if cs == nil {
		return 0
	}
	return len(cs.byBank)
}
