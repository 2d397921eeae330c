// Package camt reads and writes the bank-to-customer cash management
// messages of ISO 20022 that report what moved on an account: camt.053
// (the end-of-day statement) and camt.054 (the intraday debit/credit
// advice), versions .02 through .08. Read streams a file token by token
// (constant memory whatever its size) and hands each entry to a callback;
// WriteNotification writes a camt.054.001.08 advice. It knows nothing of
// the ledger, of HTTP or of SQL: internal/statement applies what it reads.
package camt

import "fmt"

// Kind is which of the two messages a file is.
type Kind int

// The messages read.
const (
	Statement    Kind = 53 // camt.053 BankToCustomerStatement
	Notification Kind = 54 // camt.054 BankToCustomerDebitCreditNotification
)

// Versions are the versions of both messages Read accepts.
const (
	MinVersion = 2
	MaxVersion = 8
)

// Message names a file's message, e.g. camt.053.001.02.
type Message struct {
	Kind    Kind
	Version int
	ID      string // GrpHdr/MsgId
}

// String is the message's ISO name, e.g. "camt.053.001.02".
func (m Message) String() string { return fmt.Sprintf("camt.%03d.001.%02d", int(m.Kind), m.Version) }

// Supported lists what Read accepts, for error messages and docs.
func Supported() string {
	return fmt.Sprintf("camt.053.001.%02d to camt.053.001.%02d and camt.054.001.%02d to camt.054.001.%02d",
		MinVersion, MaxVersion, MinVersion, MaxVersion)
}

// Report is one Stmt (camt.053) or Ntfctn (camt.054) of a file: the
// entries of one account.
type Report struct {
	ID       string // Stmt/Id or Ntfctn/Id
	IBAN     string // Acct/Id/IBAN, normalised (upper case, no spaces); "" when the account has another id
	Other    string // Acct/Id/Othr/Id when it has no IBAN
	Currency string // Acct/Ccy, if given
	// Closing is the closing booked balance (Bal with Tp CLBD), if given.
	Closing *Balance
}

// Account is how the report names its account: the IBAN, or the other id.
func (r Report) Account() string {
	if r.IBAN != "" {
		return r.IBAN
	}
	return r.Other
}

// Balance is a signed amount in minor units on a date.
type Balance struct {
	Amount   int64 // negative for a debit balance
	Currency string
	Date     string // YYYY-MM-DD, or a date and time as the bank wrote it
}

// Status is an entry's status: only booked entries move money.
type Status string

// Entry statuses (ExternalEntryStatus1Code). A bank's other codes are kept
// as they are and treated as not booked.
const (
	Booked      Status = "BOOK"
	Pending     Status = "PDNG"
	Information Status = "INFO"
)

// Entry is one Ntry: one movement the bank reports, of one or several
// transactions (a batch).
type Entry struct {
	Index       int    // 1-based position of the entry in the file
	Ref         string // NtryRef
	AcctSvcrRef string // the bank's reference of the entry
	Amount      int64  // minor units, positive
	Currency    string
	Credit      bool   // CRDT (else DBIT)
	Reversal    bool   // RvslInd: the entry reverses an earlier one
	Status      Status // BOOK, PDNG, INFO or the bank's own code
	BookingDate string // BookgDt/Dt or DtTm as written
	ValueDate   string // ValDt/Dt or DtTm as written
	Info        string // AddtlNtryInf
	// Transactions are the entry's TxDtls, each with its own amount; an
	// entry without details has one, of the entry's amount.
	Transactions []Transaction
	// Problem, when not nil, says why the entry cannot be used (an amount
	// its currency cannot hold, an unknown currency, a batch whose amounts
	// do not add up): Read reports it and goes on with the next entry.
	Problem error
}

// Name is how errors and summaries name the entry: its position and its
// bank reference when it has one.
func (e Entry) Name() string {
	switch {
	case e.AcctSvcrRef != "":
		return fmt.Sprintf("entry %d (AcctSvcrRef %s)", e.Index, e.AcctSvcrRef)
	case e.Ref != "":
		return fmt.Sprintf("entry %d (NtryRef %s)", e.Index, e.Ref)
	}
	return fmt.Sprintf("entry %d", e.Index)
}

// Transaction is one TxDtls of an entry (or the entry itself when it has
// none).
type Transaction struct {
	Amount      int64 // minor units, positive
	Currency    string
	Credit      bool
	EndToEndID  string
	AcctSvcrRef string
	InstrID     string
	TxID        string
	MsgID       string
	// References are the remittance references in document order:
	// RmtInf/Strd/CdtrRefInf/Ref, then each RmtInf/Ustrd.
	References []string
	Party      Party // the other side: the debtor of a credit, the creditor of a debit
	Return     bool  // RtrInf is present: the transaction returns an earlier one
	Reason     string
}

// Party is the counterparty of a transaction.
type Party struct {
	Name string
	IBAN string
}

// Handler receives what Read finds, in document order.
type Handler interface {
	// Report is called at the first entry of each Stmt or Ntfctn (or at its
	// end when it has none), with its account and balances.
	Report(r Report) error
	// Entry is called for each entry of the current report.
	Entry(r Report, e Entry) error
}
