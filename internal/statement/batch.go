package statement

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/payment"
)

// applyBatch applies batch in one unit of work with the work done per
// batch, not per entry: the claims of the entries that are claimed
// (claims) in one statement (Repository.ClaimAll, in key order), then one look-up per account of
// the external ids and the references of all their credits (prefetch),
// then each claimed entry as apply does it, through batchRepos, which
// answers the payin matching's two look-ups from those reads. What it
// writes and decides is what apply, entry by entry, would (the one path:
// payment.Service.Credit); a failing batch is applied again entry by
// entry by flush.
func (im *Importer) applyBatch(ctx context.Context, batch []pending) ([]outcome, error) {
	nows := map[string]time.Time{}
	claimOf := make([]Claim, len(batch))
	var order []int // the entries claimed (claims), in key order; of one key, the file's first first
	for i, p := range batch {
		now, ok := nows[p.acct.CustomerID]
		if !ok {
			var err error
			if now, err = clock.UnitTime(ctx, im.d.Clock, p.acct.CustomerID); err != nil {
				return nil, err
			}
			nows[p.acct.CustomerID] = now
		}
		if claims(p.entry) {
			claimOf[i] = Claim{Key: key(p.identity), Identity: p.identity, IBAN: p.iban, ImportID: p.importID, At: now}
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(claimOf[a].Key, claimOf[b].Key) })
	sorted := make([]Claim, len(order))
	for j, i := range order {
		sorted[j] = claimOf[i]
	}
	var outs []outcome
	err := im.d.InTx(ctx, func(rp Repos) error {
		claimed := make([]bool, len(batch)) // an entry not claimed (claims) goes on: its ledger transactions say
		for i := range claimed {
			claimed[i] = true
		}
		if len(sorted) > 0 {
			got, err := rp.Statements().ClaimAll(ctx, sorted)
			if err != nil {
				return err
			}
			for j, i := range order {
				claimed[i] = got[j]
			}
		}
		b, err := prefetch(ctx, rp, batch, claimed)
		if err != nil {
			return err
		}
		outs = make([]outcome, len(batch))
		for i, p := range batch {
			if !claimed[i] {
				outs[i] = outcome{duplicate: true}
				continue
			}
			if outs[i], err = im.applyClaimed(ctx, b, p, nows[p.acct.CustomerID]); err != nil {
				return err
			}
		}
		return b.settle(ctx)
	})
	return outs, err
}

// batchRepos are the repositories of a batch's unit of work: r's, whose
// two look-ups of incoming funds (the ledger's TransactionByExternalID and
// the payments' MatchExpected) are answered from what prefetch read for
// the whole batch, kept current by the unit's own writes through them (a
// transaction recorded, a payment moved). A look-up prefetch did not make
// goes to r.
type batchRepos struct {
	Repos
	statuses []payment.Status
	booked   map[string]*ledger.Transaction // account|external id: the transaction, nil for none
	expected map[string][]*payment.Payment  // account|reference: the candidates
	payments map[string]*payment.Payment    // by id: every candidate read
	// queued are the credits recorded and not yet written (settle writes
	// them with Ledger().RecordAll).
	queued struct {
		ts   []ledger.Transaction
		es   []ledger.Entry
		msgs []queuedMessage
		cs   []payment.Change
	}
}

// queuedMessage is a notification enqueued and not yet written.
type queuedMessage struct {
	at  time.Time
	msg notify.Message
}

// settle writes the queued credits. It runs before anything but the
// matching of incoming funds reads or moves the ledger (a debit, a return,
// an exception: settleFirst) and at the end of the batch: what any other
// step reads is what entry-by-entry recording would have written.
func (b *batchRepos) settle(ctx context.Context) error {
	if len(b.queued.cs) > 0 {
		err := b.Repos.Payments().MoveAll(ctx, b.queued.cs)
		b.queued.cs = b.queued.cs[:0]
		if err != nil {
			return err
		}
	}
	if len(b.queued.ts) > 0 {
		err := b.Repos.Ledger().RecordAll(ctx, b.queued.ts, b.queued.es)
		b.queued.ts, b.queued.es = b.queued.ts[:0], b.queued.es[:0]
		if err != nil {
			return err
		}
	}
	q := b.queued.msgs
	b.queued.msgs = nil
	for len(q) > 0 { // in order, one Enqueue per run of one time
		n := 1
		for n < len(q) && q[n].at.Equal(q[0].at) {
			n++
		}
		msgs := make([]notify.Message, n)
		for i := range msgs {
			msgs[i] = q[i].msg
		}
		if err := b.Repos.Outbox().Enqueue(ctx, q[0].at, msgs...); err != nil {
			return err
		}
		q = q[n:]
	}
	return nil
}

// Outbox is the unit's outbox, whose messages wait for settle.
func (b *batchRepos) Outbox() notify.Outbox { return batchOutbox{b} }

// batchOutbox queues the batch's notifications: settle writes them in the
// same unit of work, in order.
type batchOutbox struct{ b *batchRepos }

// Enqueue queues msgs.
func (o batchOutbox) Enqueue(_ context.Context, at time.Time, msgs ...notify.Message) error {
	for _, m := range msgs {
		o.b.queued.msgs = append(o.b.queued.msgs, queuedMessage{at, m})
	}
	return nil
}

// settleFirst settles r's queued credits when r is a batch's.
func settleFirst(ctx context.Context, r Repos) error {
	if b, ok := r.(*batchRepos); ok {
		return b.settle(ctx)
	}
	return nil
}

// Ledger is the unit's ledger, with the batch's external ids.
func (b *batchRepos) Ledger() ledger.Repository { return batchLedger{b.Repos.Ledger(), b} }

// Payments is the unit's payments, with the batch's expected ones.
func (b *batchRepos) Payments() payment.Repository { return batchPayments{b.Repos.Payments(), b} }

// prefetch reads, for the claimed entries of batch, per account, the
// transactions that already carry their credits' external ids and the
// payments expected under their credits' references, in one read each.
func prefetch(ctx context.Context, r Repos, batch []pending, claimed []bool) (*batchRepos, error) {
	b := &batchRepos{Repos: r, statuses: payment.PayinStatuses(), booked: map[string]*ledger.Transaction{},
		expected: map[string][]*payment.Payment{}, payments: map[string]*payment.Payment{}}
	type wanted struct{ ext, refs []string }
	accounts := map[string]*wanted{}
	var ids []string // in the batch's order: the reads' order does not depend on a map's
	for i, p := range batch {
		if !claimed[i] {
			continue
		}
		w := accounts[p.acct.ID]
		if w == nil {
			w = &wanted{}
			accounts[p.acct.ID] = w
			ids = append(ids, p.acct.ID)
		}
		for n, t := range p.entry.Transactions {
			if !t.Credit {
				continue
			}
			in := payinOf(p, n, t)
			if k := p.acct.ID + "|" + in.ExternalPaymentID; !has(b.booked, k) {
				b.booked[k] = nil
				w.ext = append(w.ext, in.ExternalPaymentID)
			}
			refs := append([]string{in.PaymentReference}, in.References...)
			if in.PaymentID != "" { // matched first (payment.Service.matchExpected)
				refs = append(refs, in.PaymentID)
			}
			for _, ref := range refs {
				if k := p.acct.ID + "|" + ref; !has(b.expected, k) {
					b.expected[k] = nil
					w.refs = append(w.refs, ref)
				}
			}
		}
	}
	for _, acct := range ids {
		w := accounts[acct]
		if len(w.ext) > 0 {
			txs, err := r.Statements().Booked(ctx, acct, w.ext)
			if err != nil {
				return nil, err
			}
			for _, t := range txs {
				if k := acct + "|" + t.ExternalID; has(b.booked, k) {
					b.booked[k] = &t
				}
			}
		}
		if len(w.refs) > 0 {
			ps, err := r.Statements().Expected(ctx, acct, w.refs, b.statuses)
			if err != nil {
				return nil, err
			}
			for _, p := range ps {
				if b.payments[p.ID] != nil {
					continue // read by another part of the references
				}
				b.payments[p.ID] = &p
				for _, ref := range []string{p.UniqueReference, p.ID} {
					if k := acct + "|" + ref; has(b.expected, k) && !slices.Contains(b.expected[k], &p) {
						b.expected[k] = append(b.expected[k], &p)
					}
				}
			}
		}
	}
	return b, nil
}

func has[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}

// batchLedger is the unit's ledger with the batch's external ids.
type batchLedger struct {
	ledger.Repository
	b *batchRepos
}

// TransactionByExternalID answers from the batch's read when it made one.
func (l batchLedger) TransactionByExternalID(ctx context.Context, accountID, externalID string) (ledger.Transaction, error) {
	t, ok := l.b.booked[accountID+"|"+externalID]
	switch {
	case !ok:
		return l.Repository.TransactionByExternalID(ctx, accountID, externalID)
	case t == nil:
		return ledger.Transaction{}, errs.E(errs.NotFound, "transaction %s was not found.", externalID)
	}
	return *t, nil
}

// Record queues t and e when e takes from no balance (a credit: its
// order among the queued ones cannot matter), else settles the queue and
// records them; and notes t under its external id.
func (l batchLedger) Record(ctx context.Context, t ledger.Transaction, e ledger.Entry) error {
	if credits(e) && e.TransactionID == t.ID {
		l.b.queued.ts, l.b.queued.es = append(l.b.queued.ts, t), append(l.b.queued.es, e)
	} else if err := l.b.settle(ctx); err != nil {
		return err
	} else if err := l.Repository.Record(ctx, t, e); err != nil {
		return err
	}
	if k := t.AccountID + "|" + t.ExternalID; t.ExternalID != "" && has(l.b.booked, k) {
		l.b.booked[k] = &t
	}
	return nil
}

// batchPayments is the unit's payments with the batch's expected ones.
type batchPayments struct {
	payment.Repository
	b *batchRepos
}

// MatchExpected answers from the batch's read when it made one for
// reference and statuses: the oldest candidate (creation, then id) of
// amount and currency in one of statuses, as the store's query.
func (r batchPayments) MatchExpected(ctx context.Context, accountID, reference string, amount int64, currency string, statuses []payment.Status) (payment.Payment, error) {
	cands, ok := r.b.expected[accountID+"|"+reference]
	if !ok || !slices.Equal(statuses, r.b.statuses) {
		return r.Repository.MatchExpected(ctx, accountID, reference, amount, currency, statuses)
	}
	var best *payment.Payment
	for _, p := range cands {
		if p.Amount() != amount || p.Request.Currency != currency || !slices.Contains(statuses, p.Status) {
			continue
		}
		if best == nil || p.CreatedAt.Before(best.CreatedAt) || p.CreatedAt.Equal(best.CreatedAt) && p.ID < best.ID {
			best = p
		}
	}
	if best == nil {
		return payment.Payment{}, errs.E(errs.NotFound, "expected payment %s was not found.", reference)
	}
	return *best, nil
}

// Move queues the move of a payment the batch read (settle writes it with
// MoveAll; one that moved meanwhile fails the batch there, CONFLICT) and
// moves the batch's copy; another payment's move settles the queue and
// is made at once.
func (r batchPayments) Move(ctx context.Context, c payment.Change) error {
	p, ok := r.b.payments[c.Payment.ID]
	if !ok {
		if err := r.b.settle(ctx); err != nil {
			return err
		}
		return r.Repository.Move(ctx, c)
	}
	if p.Status != c.From {
		return errs.E(errs.Conflict, "The payment changed meanwhile; it is no longer %s.", c.From)
	}
	r.b.queued.cs = append(r.b.queued.cs, c)
	*p = c.Payment
	return nil
}

// credits reports whether e moves no balance of any account down.
func credits(e ledger.Entry) bool {
	for _, id := range e.Accounts() {
		if d := e.Delta(id); d.Available < 0 || d.Pending < 0 || d.Held < 0 {
			return false
		}
	}
	return true
}
