package bank

import (
	"context"
	"fmt"
	"time"
)

// TransferKind names why money leaves a Connect account.
type TransferKind string

// Kinds of transfer.
const (
	TransferRefund TransferKind = "REFUND" // back to the payer of a payment
)

// Transfer is money bankrail sends out of a Connect account through the
// bank that keeps the account: a refund to the payer of a payment (payouts
// may follow the same way). ID is bankrail's id of the transfer and the
// bank's idempotency key: a transfer sent again with the same ID is not
// sent twice, its state is answered.
type Transfer struct {
	ID          string
	Kind        TransferKind
	CustomerID  string // the account's customer: the sandbox's mock bank answers on its tenant's clock
	AccountID   string
	AccountIBAN string // the account the money leaves
	Amount      int64  // minor units
	Currency    string
	Beneficiary Party  // who receives it: the payer, for a refund (empty when the payer's bank did not say)
	Reference   string // what the beneficiary sees (a refund's externalReference)
	PaymentID   string // the payment refunded
	RequestedAt time.Time
	// Scenario is the sandbox's X-Service-Testing-Scenario of the request
	// (REFUND_REJECTED), kept with the transfer for the mock bank; always
	// empty in production.
	Scenario string
}

// Party is one side of a transfer.
type Party struct {
	Name string
	IBAN string
}

// TransferState is what a bank says of a transfer.
type TransferState string

// States of a transfer.
const (
	TransferPending   TransferState = "PENDING"   // taken, no final answer yet: ask again
	TransferCompleted TransferState = "COMPLETED" // the money left
	TransferFailed    TransferState = "FAILED"    // it could not be sent: the money stays
	TransferRejected  TransferState = "REJECTED"  // the beneficiary's bank refused it: the money is back
)

// Final reports whether s is an end state.
func (s TransferState) Final() bool {
	return s == TransferCompleted || s == TransferFailed || s == TransferRejected
}

// TransferAnswer is a bank's answer to a transfer.
type TransferAnswer struct {
	State TransferState
	// AskAgainAt, with TransferPending, is when to ask again (on the
	// clock of the transfer's customer); zero leaves it to the caller.
	AskAgainAt time.Time
	Reason     string // with FAILED or REJECTED: why, as the bank says
}

// TransferSender sends transfers through a bank. Send must be idempotent on
// Transfer.ID: bankrail sends again whenever it cannot know whether an
// earlier send was taken (a crash, a timeout), and keeps asking while the
// answer is TransferPending. An error means "no answer": it is retried.
type TransferSender interface {
	Send(ctx context.Context, t Transfer) (TransferAnswer, error)
}

// SendTransfersWith makes s the way transfers leave the Connect accounts
// (one bank keeps them all). A second sender or a nil one is an error: the
// wiring is wrong.
func (cs *Connectors) SendTransfersWith(s TransferSender) error {
	switch {
	case s == nil:
		return fmt.Errorf("send transfers: no sender")
	case cs.transfers != nil:
		return fmt.Errorf("send transfers: a sender is wired already")
	}
	cs.transfers = s
	return nil
}

// Transfers returns the sender of transfers, if one is wired.
func (cs *Connectors) Transfers() (TransferSender, bool) {
	if cs == nil || cs.transfers == nil {
		return nil, false
	}
	return cs.transfers, true
}
