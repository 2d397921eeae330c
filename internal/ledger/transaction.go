package ledger

import (
	"time"

	"github.com/bankrail/bankrail/internal/money"
)

// TxType is what a transaction is for.
type TxType string

// Transaction types of the Accounts API.
const (
	TypeGatewayPayment TxType = "GATEWAY_PAYMENT" // funds of a payment
	TypeManualCredit   TxType = "MANUAL_CREDIT"   // incoming funds that matched no payment
	TypeRefund         TxType = "REFUND"
	TypePayout         TxType = "PAYOUT"
	TypeTopUp          TxType = "TOP_UP"      // stablecoin deposit credited
	TypeBounceBack     TxType = "BOUNCE_BACK" // funds returned
)

// TxTypes lists every transaction type (for filters).
var TxTypes = []TxType{TypeGatewayPayment, TypeManualCredit, TypeRefund, TypePayout, TypeTopUp, TypeBounceBack}

// Operation is the direction of a transaction.
type Operation string

// Operations.
const (
	Incoming Operation = "INCOMING"
	Outgoing Operation = "OUTGOING"
)

// TxStatus is the state of a transaction.
type TxStatus string

// Transaction statuses.
const (
	TxCreated    TxStatus = "CREATED"
	TxProcessing TxStatus = "PROCESSING"
	TxCompleted  TxStatus = "COMPLETED"
	TxRejected   TxStatus = "REJECTED"
	TxFailed     TxStatus = "FAILED"
)

// TxStatuses lists every transaction status (for filters).
var TxStatuses = []TxStatus{TxCreated, TxProcessing, TxCompleted, TxRejected, TxFailed}

// Final reports whether s ends the transaction.
func (s TxStatus) Final() bool { return s == TxCompleted || s == TxRejected || s == TxFailed }

// Counterparty is the other side of a transaction.
type Counterparty struct {
	Name string
	IBAN string
}

// Transaction is one movement of money of an account, as the Accounts API
// shows it. Its entries (one per change of status) are its postings.
type Transaction struct {
	ID           string
	AccountID    string
	CustomerID   string // the account's customer
	Type         TxType
	Operation    Operation
	Status       TxStatus
	Amount       money.Money // positive, in the account's currency
	PaymentID    string      // the payment it belongs to, if any
	ExternalID   string      // the sender's id of incoming funds (POST /payin externalPaymentId), if any
	Reference    string
	Counterparty Counterparty
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// String is the type's name.
func (t TxType) String() string { return string(t) }
