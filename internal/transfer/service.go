package transfer

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/pain"
)

// DefaultMaxPerFile is how many transfers one pain.001 file takes at most
// (banks take far more; a bigger backlog makes several files).
const DefaultMaxPerFile = 10000

// Config is the transfer service's configuration.
type Config struct {
	// Initiator is the name of the provider in the files (InitgPty/Nm).
	Initiator string
	// MaxPerFile is how many transfers one file takes at most.
	MaxPerFile int
}

// withDefaults fills the zero fields.
func (c Config) withDefaults() Config {
	if c.Initiator == "" {
		c.Initiator = "bankrail"
	}
	if c.MaxPerFile <= 0 {
		c.MaxPerFile = DefaultMaxPerFile
	}
	return c
}

// Service writes the transfer files and applies the bank's answers.
type Service struct {
	transfers Repository // reads
	inTx      Transactor
	clock     clock.Clock
	cfg       Config
	log       *slog.Logger
	owners    map[Kind]Owner
	advices   Advices // the mock bank's camt.054 advices (the sandbox)
}

// NewService returns the transfer service.
func NewService(transfers Repository, inTx Transactor, clk clock.Clock, cfg Config, log *slog.Logger) *Service {
	return &Service{transfers: transfers, inTx: inTx, clock: clk, cfg: cfg.withDefaults(), log: log, owners: map[Kind]Owner{}}
}

// UseOwner makes o the owner of the transfers of kind k (the payouts, the
// refunds): the bank's answers are applied through it.
func (s *Service) UseOwner(k Kind, o Owner) { s.owners[k] = o }

// ErrNoFile is Export's answer when no transfer was queued.
var ErrNoFile = errors.New("no transfer is queued")

// Queue queues t in the unit of work r of its owner (a payout going on, a
// refund's settlement): the next export files it. It refuses a transfer
// the files cannot carry (pain.Instruction.Check: a currency other than
// EUR, an IBAN missing) with a VALIDATION_FAILURE that says why.
func Queue(ctx context.Context, r Repos, t Transfer) error {
	if err := t.Sendable(); err != nil {
		return errs.Wrap(errs.ValidationFailure, err, "The transfer cannot be sent by SEPA credit transfer: %v", err)
	}
	if t.ExecutionDate == "" {
		t.ExecutionDate = t.CreatedAt.Format(time.DateOnly) // the export sets the file's date
	}
	t.State, t.FileID = Queued, ""
	return r.Transfers().Queue(ctx, t)
}

// Sendable reports why t cannot go into a pain.001 file (nil when it
// can): a currency other than EUR, an IBAN missing or invalid, an amount
// out of range (pain.Instruction.Check).
func (t Transfer) Sendable() error {
	if t.ExecutionDate == "" {
		t.ExecutionDate = t.CreatedAt.Format(time.DateOnly)
	}
	return t.instruction().Check()
}

// instruction is t as a line of a pain.001.
func (t Transfer) instruction() pain.Instruction {
	return pain.Instruction{ID: t.ID, DebtorIBAN: t.DebtorIBAN, DebtorName: t.DebtorName, CreditorName: t.CreditorName,
		CreditorIBAN: t.CreditorIBAN, Amount: t.Amount, Currency: t.Currency, Remittance: t.Remittance, ExecutionDate: t.ExecutionDate}
}

// Export collects queued transfers (up to Config.MaxPerFile, oldest first;
// of customerID only when it is set, as the sandbox's mock bank does) into
// a new pain.001 file whose requested execution date is the day of the
// export (UTC; the bank's cut-off decides whether it leaves that day or
// the next business day), in one unit of work: the claim of each transfer and
// the file commit together, so a transfer is in exactly one file however
// many exports run at once, and a failed export leaves them queued. It
// returns ErrNoFile when nothing was queued.
func (s *Service) Export(ctx context.Context, customerID string) (File, error) {
	var out File
	err := s.inTx(ctx, func(r Repos) error {
		var err error
		out, err = s.export(ctx, r, customerID)
		return err
	})
	if err != nil {
		return File{}, err
	}
	s.log.Info("transfer file written", "file", out.ID, "msgId", out.MsgID, "transfers", out.Count, "sum", out.Sum)
	return out, nil
}
