package store_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/store"
)

// The statuses and currencies the property test's payments take.
var (
	countStatuses = []payment.Status{payment.StatusNew, payment.StatusBankRedirect, payment.StatusAuthorisedByUser,
		payment.StatusCompleted, payment.StatusRefusedByRisk, payment.StatusAbandonedByUser}
	countCurrencies = []string{"EUR", "GBP"}
)

// fataler is a *testing.T or a *rapid.T.
type fataler interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// wantExactTotals checks GET /payments' total-items for each viewer and
// every filter the counts answer (none, status, currency, both; for the
// first viewer also narrowed to the customer narrow) against a COUNT(*) of
// the payments.
func wantExactTotals(t fataler, s *store.Store, when string, viewers []string, narrow string) {
	t.Helper()
	ctx := context.Background()
	statuses := append([]payment.Status{""}, countStatuses...)
	currencies := append([]string{""}, countCurrencies...)
	for i, viewer := range viewers {
		for _, only := range []string{"", narrow} {
			if only != "" && i > 0 {
				continue // narrowed as the first viewer sees it
			}
			for _, st := range statuses {
				for _, cur := range currencies {
					f := payment.ListFilter{CustomerID: only, Status: st, Currency: cur, Page: 1, Limit: 1}
					page, err := s.Payments().ListPage(ctx, viewer, f)
					if err != nil {
						t.Fatalf("%s: list of %s %+v: %v", when, viewer, f, err)
					}
					want, err := s.QueryInt(ctx, `SELECT COUNT(*) FROM payments p JOIN customer_tree t ON t.descendant_id = p.customer_id
						WHERE t.ancestor_id = $1 AND ($2 = '' OR p.customer_id = $2) AND ($3 = '' OR p.status = $3) AND ($4 = '' OR p.currency = $4)`,
						viewer, only, string(st), cur)
					if err != nil {
						t.Fatal(err)
					}
					if page.Total != want {
						t.Fatalf("%s: total-items of %s, customer %q, status %q, currency %q: %d, COUNT(*) %d", when, viewer, only, st, cur, page.Total, want)
					}
				}
			}
		}
	}
}

// TestPaymentCountsExactProperty drives the store through every way a
// payment is counted (version 63: by customer, status and currency):
// creations (alone, in a group of units, with a sandbox scenario's moves
// played at creation), moves (Move as the API, scenarios and expiry save
// them; MoveAll as the statement import does, with chains), moves and
// creations in units that fail (rolled back, alone or to their
// savepoint in a group), a stale move (CONFLICT, nothing written), a
// payment moved to another customer by SQL (the trigger), and restores of
// the instance's snapshot (a reset: every payment deleted, then written
// again). After each run every filter's total-items equals a COUNT(*).
// Both engines.
func TestPaymentCountsExactProperty(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		ctx := context.Background()
		s := open(t, db)
		var runs atomic.Int64
		rapid.Check(t, func(rt *rapid.T) {
			run := runs.Add(1)
			id := func(kind, i int) string { return fmt.Sprintf("63%06d-0000-4000-8000-%04d%08d", run, kind, i) }
			root := identity.Customer{ID: id(0, 1), Name: "PSP", CreatedAt: t0}
			shop := identity.Customer{ID: id(0, 2), Name: "Shop", ParentID: root.ID, CreatedAt: t0}
			sub := identity.Customer{ID: id(0, 3), Name: "Sub", ParentID: shop.ID, CreatedAt: t0}
			for _, c := range []identity.Customer{root, shop, sub} {
				if err := s.CreateCustomer(ctx, c); err != nil {
					rt.Fatal(err)
				}
			}
			customers := []string{root.ID, shop.ID, sub.ID}
			stored := map[string]payment.Payment{} // as committed
			next := 0
			at := t0
			newPayment := func() payment.Payment {
				next++
				at = at.Add(time.Second)
				p := testPayment(id(1, next), rapid.SampledFrom(customers).Draw(rt, "customer"), fmt.Sprintf("C%06d%05d", run, next), at)
				p.Request.Currency = rapid.SampledFrom(countCurrencies).Draw(rt, "currency")
				if st := rapid.SampledFrom(countStatuses).Draw(rt, "scenario"); st != payment.StatusNew { // a scenario played at creation
					p = moved(p, st, at).Payment
				}
				return p
			}
			pick := func() (payment.Payment, bool) {
				if len(stored) == 0 {
					return payment.Payment{}, false
				}
				return stored[rapid.SampledFrom(slices.Sorted(maps.Keys(stored))).Draw(rt, "payment")], true
			}
			moveOf := func(p payment.Payment) payment.Change {
				at = at.Add(time.Second)
				to := rapid.SampledFrom(countStatuses).Filter(func(st payment.Status) bool { return st != p.Status }).Draw(rt, "to")
				return moved(p, to, at)
			}
			own := errors.New("the unit fails")
			type snapshot struct {
				dump   tables
				stored map[string]payment.Payment
			}
			var snaps []snapshot
			for range rapid.IntRange(1, 12).Draw(rt, "steps") {
				switch rapid.IntRange(0, 7).Draw(rt, "step") {
				case 0: // creations, one unit each, maybe one that fails
					n, failing := rapid.IntRange(1, 4).Draw(rt, "n"), rapid.IntRange(-1, 3).Draw(rt, "failing")
					for i := range n {
						p := newPayment()
						err := s.InTx(ctx, func(tx *store.Tx) error {
							if err := tx.Payments().Create(ctx, p); err != nil {
								return err
							}
							if i == failing {
								return own
							}
							return nil
						})
						if i != failing && err != nil {
							rt.Fatal(err)
						}
						if i != failing {
							stored[p.ID] = p
						}
					}
				case 1: // creations and moves as one group, one unit failing after its write
					n, failing := rapid.IntRange(2, 6).Draw(rt, "n"), rapid.IntRange(-1, 5).Draw(rt, "failing")
					var cs []payment.Change
					var ps []payment.Payment
					taken := map[string]bool{}
					for range n {
						if p, ok := pick(); ok && !taken[p.ID] && rapid.Bool().Draw(rt, "move") {
							taken[p.ID] = true
							cs, ps = append(cs, moveOf(p)), append(ps, payment.Payment{})
						} else {
							cs, ps = append(cs, payment.Change{}), append(ps, newPayment())
						}
					}
					results := asOneGroup(t, ctx, s, n, func(i int, tx *store.Tx) error {
						var err error
						if ps[i].ID != "" {
							err = tx.Payments().Create(ctx, ps[i])
						} else {
							err = tx.Payments().Move(ctx, cs[i])
						}
						if err == nil && i == failing {
							err = own
						}
						return err
					})
					for i, err := range results {
						switch {
						case i == failing && !errors.Is(err, own):
							rt.Fatalf("unit %d: %v, want its own error", i, err)
						case i != failing && err != nil:
							rt.Fatalf("unit %d: %v", i, err)
						case i != failing && ps[i].ID != "":
							stored[ps[i].ID] = ps[i]
						case i != failing:
							stored[cs[i].Payment.ID] = cs[i].Payment
						}
					}
				case 2: // one move, as the API, a scenario or the expiry job saves it
					if p, ok := pick(); ok {
						c := moveOf(p)
						if err := movePayment(ctx, s, c); err != nil {
							rt.Fatal(err)
						}
						stored[p.ID] = c.Payment
					}
				case 3: // a stale move: CONFLICT, nothing counted
					if p, ok := pick(); ok {
						c := moveOf(p)
						c.From = rapid.SampledFrom(countStatuses).Filter(func(st payment.Status) bool { return st != p.Status }).Draw(rt, "stale")
						if err := movePayment(ctx, s, c); !errs.Is(err, errs.Conflict) {
							rt.Fatalf("a stale move: %v, want CONFLICT", err)
						}
					}
				case 4: // MoveAll, as the statement import, chains included; maybe one stale change
					var cs []payment.Change
					last := map[string]payment.Payment{}
					for range rapid.IntRange(1, 8).Draw(rt, "moves") {
						p, ok := pick()
						if !ok {
							break
						}
						if q, ok := last[p.ID]; ok {
							p = q // a chain: from where the batch moved it
						}
						c := moveOf(p)
						cs, last[p.ID] = append(cs, c), c.Payment
					}
					stale := len(cs) > 0 && rapid.IntRange(0, 4).Draw(rt, "staleAll") == 0
					if stale {
						cs[0].From = rapid.SampledFrom(countStatuses).Filter(func(st payment.Status) bool { return st != cs[0].From }).Draw(rt, "staleFrom")
					}
					err := s.InTx(ctx, func(tx *store.Tx) error { return tx.Payments().MoveAll(ctx, cs) })
					switch {
					case stale && !errs.Is(err, errs.Conflict):
						rt.Fatalf("MoveAll with a stale change: %v, want CONFLICT", err)
					case !stale && err != nil:
						rt.Fatal(err)
					case !stale:
						maps.Copy(stored, last)
					}
				case 5: // created and moved in one unit: counted once, in its last status
					p := newPayment()
					c := moveOf(p)
					err := s.InTx(ctx, func(tx *store.Tx) error {
						if err := tx.Payments().Create(ctx, p); err != nil {
							return err
						}
						return tx.Payments().Move(ctx, c)
					})
					if err != nil {
						rt.Fatal(err)
					}
					stored[p.ID] = c.Payment
				case 6: // moved to another customer by SQL (the trigger counts it)
					if p, ok := pick(); ok {
						to := rapid.SampledFrom(customers).Draw(rt, "owner")
						if err := s.Exec(ctx, `UPDATE payments SET customer_id = $1 WHERE id = $2`, to, p.ID); err != nil {
							rt.Fatal(err)
						}
						p.CustomerID = to
						stored[p.ID] = p
					}
				case 7: // a snapshot taken, or one restored (every payment deleted and written again)
					if len(snaps) == 0 || rapid.Bool().Draw(rt, "take") {
						var dump tables
						if err := s.DumpTables(ctx, &dump); err != nil {
							rt.Fatal(err)
						}
						snaps = append(snaps, snapshot{dump, maps.Clone(stored)})
						continue
					}
					snap := rapid.SampledFrom(snaps).Draw(rt, "snapshot")
					if _, err := s.ReplaceTables(ctx, snap.dump, nil); err != nil {
						rt.Fatal(err)
					}
					stored = maps.Clone(snap.stored)
				}
			}
			wantExactTotals(rt, s, fmt.Sprintf("run %d", run), customers, shop.ID)
		})
	})
}
