// Package transfer is the way money leaves the Connect accounts through
// the provider's bank in files: payouts and refunds become transfer
// instructions (queued in the unit of work that decides them), an export
// collects the queued ones into pain.001 files (each instruction into
// exactly one file, once, by a claim in the database), and the bank's
// pain.002 answers move them: a rejected one goes back to its owner (the
// payout or the refund) as REJECTED with its funds back; an accepted one
// waits for the bank's debit (camt.054) that books it. The sandbox's mock
// bank (MockBank) takes the same files. It knows nothing of HTTP or SQL.
package transfer

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/paging"
)

// Kind is what a transfer pays out.
type Kind string

// Kinds of transfer.
const (
	KindPayout Kind = "PAYOUT" // a payout (both types) to its beneficiary
	KindRefund Kind = "REFUND" // a refund to the payer of a payment
)

// State is where a transfer is on its way to the bank.
type State string

// States of a transfer.
const (
	Queued   State = "QUEUED"   // waiting for the next file
	Filed    State = "FILED"    // in a file (FileID), no answer yet
	Accepted State = "ACCEPTED" // the bank took it (pain.002): its debit books it
	Rejected State = "REJECTED" // the bank refused it (pain.002 RJCT): its owner is REJECTED, the money back
	Booked   State = "BOOKED"   // the bank debited the account (camt.054, or the sandbox's mock bank)
)

// Transfer is one credit transfer out of a Connect account: the
// instruction of a payout or a refund (same id).
type Transfer struct {
	ID            string // the id of its ledger transaction (a payout's id; a refund's transaction)
	Kind          Kind
	OwnerID       string // the payout's or the refund's id
	CustomerID    string // the account's customer
	AccountID     string
	DebtorIBAN    string // the Connect account's IBAN
	DebtorName    string // the account holder
	CreditorName  string
	CreditorIBAN  string
	Amount        int64 // minor units
	Currency      string
	Remittance    string // the reference the beneficiary sees
	ExecutionDate string // requested execution date, YYYY-MM-DD: the day of the export that filed it
	Scenario      string // the sandbox's testing scenario, for the mock bank; empty in production
	State         State
	FileID        string // the pain.001 file it went in (empty while QUEUED)
	Reason        string // the bank's reason for a rejection
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Direction says who wrote a file.
type Direction string

// Directions of a bank file.
const (
	Out Direction = "OUT" // bankrail to the bank: a pain.001
	In  Direction = "IN"  // the bank to bankrail: a pain.002
)

// File is a file exchanged with the bank about transfers.
type File struct {
	ID string
	// MsgID is the document's MsgId: an OUT file's (bankrail wrote it) is
	// unique on the instance; an IN file's (the bank's) per customer.
	MsgID     string
	Message   string // pain.001.001.10 or pain.002.001.11
	Direction Direction
	// CustomerID is the customer whose transfers a sandbox file holds (its
	// developers see it at GET /sandbox/bank-files); empty for a
	// production file, which holds every customer's and only operators see.
	CustomerID  string
	Original    string // of an IN file: the MsgId of the pain.001 it answers
	Count       int    // transfers in it
	Sum         int64  // their amount, minor units
	Currency    string
	Body        []byte // the XML; empty in lists
	CreatedAt   time.Time
	DeliveredAt time.Time // an OUT file: when it was written to the transfers folder (zero until then)
}

// Name is the file's name in a folder: its MsgId and .xml.
func (f File) Name() string { return f.MsgID + ".xml" }

// FileFilter narrows a list of files. Zero fields match everything.
type FileFilter struct {
	Direction Direction
	Page      int // from 1
	Limit     int // 1..100
}

// Repository keeps transfers and their files.
type Repository interface {
	// Queue inserts t (QUEUED); a transfer with its id already there is
	// left as it is (queuing is idempotent on the id).
	Queue(ctx context.Context, t Transfer) error
	// Get reads a transfer by id (NOT_FOUND when bankrail never queued it).
	Get(ctx context.Context, id string) (Transfer, error)
	// Claim moves up to limit QUEUED transfers (oldest first) to FILED in
	// file fileID with execution date date (YYYY-MM-DD) and returns them;
	// customerID, when set, claims only that customer's. Two claims at
	// once never take the same transfer (the database's row locks; on
	// PostgreSQL SKIP LOCKED).
	Claim(ctx context.Context, fileID, customerID string, limit int, date string, now time.Time) ([]Transfer, error)
	// InFile lists the transfers of file fileID, by id.
	InFile(ctx context.Context, fileID string) ([]Transfer, error)
	// Answer moves transfer id from state from to state to with the
	// bank's reason (CONFLICT when it is no longer in from).
	Answer(ctx context.Context, id string, from, to State, reason string, now time.Time) error
	// AddFile stores f (CONFLICT when its MsgId is taken: by another OUT
	// file, or by an IN file of f's customer).
	AddFile(ctx context.Context, f File) error
	// File reads a file (with its body) visible to viewerCustomerID; ""
	// sees every file (an operator).
	File(ctx context.Context, viewerCustomerID, id string) (File, error)
	// FileByMsgID reads the file of direction d with MsgId msgID: an IN
	// file of customer customerID ("" production's); an OUT file whatever
	// its customer (its MsgId is unique on the instance), customerID
	// unused.
	FileByMsgID(ctx context.Context, d Direction, customerID, msgID string) (File, error)
	// Files lists the files visible to viewerCustomerID ("" for every
	// file), newest first, without their bodies, and the total; sandbox
	// true lists the mock bank's (with a customer), false production's.
	Files(ctx context.Context, viewerCustomerID string, sandbox bool, f FileFilter) (paging.Page[File], error)
	// Undelivered lists up to limit OUT files not yet written to the
	// transfers folder, oldest first, with their bodies.
	Undelivered(ctx context.Context, limit int) ([]File, error)
	// Delivered records that file id was written to the folder.
	Delivered(ctx context.Context, id string, at time.Time) error
}

// Repos are the repositories a transfer writes through in one unit of work.
type Repos interface {
	Transfers() Repository
}

// Transactor runs fn in one unit of work.
type Transactor func(ctx context.Context, fn func(Repos) error) error

// Owner is what a transfer pays out (the payouts, the refunds): it applies
// the bank's answer to its own records in the import's unit of work r,
// with their ledger entries and notifications.
type Owner interface {
	// Rejected ends the owner of t REJECTED (the bank refused the
	// transfer: its hold goes back to the account) for reason.
	Rejected(ctx context.Context, r Repos, t Transfer, reason string) error
	// Booked ends the owner of t as the bank booked its debit: COMPLETED
	// (ok) or, for a transfer the bank took but could not carry out (a
	// return), FAILED with reason and the money back.
	Booked(ctx context.Context, r Repos, t Transfer, ok bool, reason string) error
}
