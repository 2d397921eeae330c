// Package channel is bankrail's stablecoin deposit channels domain: a
// channel takes one token (USDC or EURC) on one network (ETH, SOL, BASE,
// POLYGON) at a deposit address of that network's format, and credits the
// fiat equivalent to its customer's Connect account. A deposit is detected
// (PROCESSING), then confirmed on the tenant's clock after 12 blocks
// (COMPLETED): it is converted at the sandbox rate with exact decimal
// arithmetic (math/big, half-even; never floating point) and credited as a
// TOP_UP transaction of the ledger in the same unit of work as the
// confirmation and its notification. It knows nothing of HTTP or SQL.
package channel

import "time"

// Token is the stablecoin a channel takes.
type Token string

// Tokens.
const (
	USDC Token = "USDC"
	EURC Token = "EURC"
)

// Network is the chain a channel's address lives on.
type Network string

// Networks. ETH, BASE and POLYGON are EVM networks (0x + 40 hex, EIP-55);
// SOL addresses are base58 public keys.
const (
	ETH     Network = "ETH"
	SOL     Network = "SOL"
	BASE    Network = "BASE"
	POLYGON Network = "POLYGON"
)

// EVM reports whether n uses Ethereum-style addresses.
func (n Network) EVM() bool { return n == ETH || n == BASE || n == POLYGON }

// Tokens, Networks and Currencies are the accepted values.
var (
	Tokens     = []Token{USDC, EURC}
	Networks   = []Network{ETH, SOL, BASE, POLYGON}
	Currencies = []string{"EUR", "GBP", "USD"}
)

// Status of a channel.
type Status string

// Channel statuses.
const Active Status = "ACTIVE"

// Channel is one deposit channel of a customer.
type Channel struct {
	ID               string
	CustomerID       string
	ClientID         string // the application that created it: notifications go there
	Token            Token
	Network          Network
	Currency         string // the fiat credited
	Address          string
	Status           Status
	EndUserReference string
	CreatedAt        time.Time
}

// PaymentStatus is where a deposit is.
type PaymentStatus string

// Channel payment statuses.
const (
	Processing PaymentStatus = "PROCESSING" // detected, waiting for its confirmations
	Completed  PaymentStatus = "COMPLETED"  // confirmed and credited
)

// Confirmations is how many blocks confirm a deposit, and ConfirmAfter the
// time they take on the clock (decisions.md).
const (
	Confirmations = 12
	ConfirmAfter  = 60 * time.Second
)

// Payment is one deposit received on a channel.
type Payment struct {
	ID               string
	ChannelID        string
	CustomerID       string
	Status           PaymentStatus
	EndUserReference string
	Hash             string
	Paid             Amount // in token units, 6 fractional digits
	Token            Token
	DetectedAt       time.Time
	ConfirmedAt      time.Time // zero until COMPLETED
	Credited         *Credit   // nil until COMPLETED
	Rate             *Rate     // nil until COMPLETED
	TransactionID    string    // the ledger's TOP_UP transaction, if any amount was credited
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// Credit is the fiat credited for a deposit, in minor units.
type Credit struct {
	Amount   int64
	Currency string
}

// Rate is the conversion rate applied: Value fiat per token unit, as an
// exact decimal string, for Pair TOKEN/FIAT.
type Rate struct {
	Value string
	Pair  string
}
