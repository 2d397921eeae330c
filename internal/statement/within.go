package statement

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/bankrail/bankrail/internal/transfer"
)

// errUnitSpent stops an import inside a unit of work that failed already.
var errUnitSpent = errors.New("statement: the unit of work failed earlier in this file")

// ApplyWithin applies the statement file body (named name) inside the
// caller's unit of work r rather than in units of its own: the sandbox's
// mock bank books the transfers it carries out with a camt.054 advice in
// the unit that sends them. It is Apply with every unit of work (and
// every read of accounts) being r: the same two readings, the same entry
// identities (a file applied twice changes nothing), the same booking
// code, the summary kept in r. What differs is failure: a unit of work
// that failed part-way cannot go on, so the first error of any entry
// (Apply would retry that entry alone, or reject it) is the import's
// error, and the caller's unit is to be rolled back.
//
// It holds as long as Apply writes only through Deps.InTx and reads
// accounts through Deps.Reads.
func (im *Importer) ApplyWithin(ctx context.Context, r Repos, name string, body []byte) (Summary, error) {
	var failed error
	within := *im
	within.d.Reads = r.Statements()
	within.d.Progress = nil
	within.d.InTx = func(_ context.Context, fn func(Repos) error) error {
		if failed != nil {
			return errUnitSpent
		}
		failed = fn(r)
		return failed
	}
	s, err := within.Apply(ctx, name, bytes.NewReader(body))
	if failed != nil {
		return Summary{}, failed
	}
	return s, err
}

// Advices is the sandbox mock bank's importer of its camt.054 advices (a
// transfer.Advices): ApplyWithin in the transfer's unit of work, which
// must be one of the importer's (Repos). An entry the file does not book
// as written, rejected or kept as an exception, is an error: the mock
// bank writes only what bankrail sent.
type Advices struct{ Importer *Importer }

var _ transfer.Advices = Advices{}

// ApplyAdvice applies the advice body (named name) in unit of work r.
func (a Advices) ApplyAdvice(ctx context.Context, r transfer.Repos, name string, body []byte) error {
	rs, ok := r.(Repos)
	if !ok {
		return fmt.Errorf("statement: the unit of work %T cannot apply a statement", r)
	}
	s, err := a.Importer.ApplyWithin(ctx, rs, name, body)
	switch {
	case err != nil:
		return err
	case len(s.Rejected) > 0:
		reasons := make([]string, len(s.Rejected))
		for i, rj := range s.Rejected {
			reasons[i] = rj.Entry + ": " + rj.Reason
		}
		return fmt.Errorf("%s: entries rejected: %s", name, strings.Join(reasons, "; "))
	case s.Exceptions > 0:
		return fmt.Errorf("%s: %d entries were kept as reconciliation exceptions", name, s.Exceptions)
	}
	return nil
}
