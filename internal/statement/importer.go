package statement

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"

	"github.com/bankrail/bankrail/internal/camt"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ids"
)

// Config are the importer's settings.
type Config struct {
	// BatchSize is how many entries one unit of work applies (default
	// 2000: its claims, look-ups and writes are made per batch):
	// an entry is never split, and a batch that fails is applied again one
	// entry a unit.
	BatchSize int
	// SpoolDir is where an import spools what it read of its file
	// (a temporary file, removed when the import ends; "" for the
	// system's temporary directory).
	SpoolDir string
}

// DefaultBatchSize is Config.BatchSize's default.
const DefaultBatchSize = 2000

func (c *Config) validate() error {
	if c.BatchSize == 0 {
		c.BatchSize = DefaultBatchSize
	}
	if c.BatchSize < 1 || c.BatchSize > 10000 {
		return fmt.Errorf("statement: BatchSize %d outside 1..10000", c.BatchSize)
	}
	return nil
}

// Deps are what the importer works with.
type Deps struct {
	InTx    Transactor
	Reads   Repository // reads and the summaries, outside any unit of work
	Credit  Crediter
	Payouts PayoutBooker
	Refunds RefundBooker
	// Transfers, when set, books the debits of payouts and refunds that
	// left as transfer files (their transfer row); the others go to
	// Payouts and Refunds.
	Transfers TransferBooker
	Clock     clock.Clock
	Log       *slog.Logger
	Config    Config
	// Progress, when set, is told after each committed unit of work how
	// many entries of the file have been applied so far (progress logs,
	// the crash test).
	Progress func(file string, applied int)
}

// Importer applies statement files.
type Importer struct{ d Deps }

// New returns an importer (an error for an invalid Config).
func New(d Deps) (*Importer, error) {
	if err := d.Config.validate(); err != nil {
		return nil, err
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Importer{d: d}, nil
}

// Import applies the statement file src (named name) for an operator
// (identity.BankFilesImport): see Apply.
func (im *Importer) Import(ctx context.Context, name string, src io.ReadSeeker) (Summary, error) {
	if _, err := identity.Authorize(ctx, identity.BankFilesImport); err != nil {
		return Summary{}, err
	}
	return im.Apply(ctx, name, src)
}

// Apply reads src once, whole, before it writes anything: a file that is
// no supported statement or no well-formed XML is refused
// (errs.BadRequest) and writes nothing; what the reading found is spooled
// to a temporary file (spool). Then it applies, from the spool, each
// booked entry of a known account once (a batch of entries a unit of
// work). The summary is kept and returned. The caller has authorised the
// use (Import for operators; the sandbox's POST /payin as the merchant).
func (im *Importer) Apply(ctx context.Context, name string, src io.ReadSeeker) (Summary, error) {
	sp, err := newSpool(im.d.Config.SpoolDir)
	if err != nil {
		return Summary{}, err
	}
	defer sp.close()
	h := sha256.New()
	msg, err := camt.Read(io.TeeReader(src, h), sp)
	if err != nil {
		return Summary{}, err
	}
	run := &run{im: im, ctx: ctx, accounts: map[string]*account{}, seen: map[string]int{},
		sum: Summary{ID: ids.New(), File: name, SHA256: sum(h), Rejected: []Rejection{}, Accounts: []AccountSummary{}}}
	err = sp.replay(run)
	if err == nil {
		err = run.flush()
	}
	if err != nil {
		return Summary{}, fmt.Errorf("import %s: %w", name, err)
	}
	run.sum.Message, run.sum.MessageID = msg.String(), msg.ID
	return run.finish()
}

func sum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// entryFault reports an error of the input rather than of the instance: a
// domain error (an entry's payment moved, its account changed, a file that
// is no statement), which rejects that entry or file; anything else (the
// database went away) stops the import.
func entryFault(err error) bool {
	var e *errs.Error
	return errors.As(err, &e) && e.Code != errs.Internal
}
