package httpapi_test

import (
	"context"
	"sync"
	"testing"

	"github.com/bankrail/bankrail/internal/alias"
	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/dbtest"
)

// Workers racing on the same orders never issue an alias twice nor count a
// batch twice: besides each order's job, one more worker per instance
// issues it; every order ends COMPLETED with exactly its aliases, each
// place in the order once and every IBAN once. Run it many times:
// go test ./internal/httpapi -run AliasIssuanceRace -count=20.
func TestAliasIssuanceRace(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) { aliasRace(t, env, env) })
}

// The same across two instances on one PostgreSQL database.
func TestAliasIssuanceRaceAcrossInstances(t *testing.T) {
	t.Parallel()
	db := dbtest.Migrated(t, dbtest.Postgres)
	aliasRace(t, apptest.NewOn(t, db), apptest.NewOn(t, db))
}

func aliasRace(t *testing.T, a, b *apptest.Env) {
	t.Helper()
	acct := openAccount(t, a, apptest.ShopID, "EUR", "race")
	token := a.Token(t, apptest.Merchant) // signing keys are shared: b accepts a's tokens
	const count = 250
	orders := []string{mustOrderAliases(t, a, token, acct.ID, count, nil), mustOrderAliases(t, b, token, acct.ID, count, nil)}
	var wg sync.WaitGroup
	errs := make(chan error, 2*len(orders))
	for _, id := range orders {
		for _, env := range []*apptest.Env{a, b} {
			wg.Go(func() { errs <- env.App.Aliases().Issue(context.Background(), alias.IssueArgs{OrderID: id}) })
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a racing worker: %v", err)
		}
	}
	_, read := a.App.Store().Pools()
	for _, id := range orders {
		if o, _ := awaitAliasOrder(t, b, token, id); o.Status != "COMPLETED" || o.Completed != count {
			t.Fatalf("order %+v", o)
		}
		var rows, places, ibans, first, last, completed int
		err := read.QueryRowContext(context.Background(), `SELECT COUNT(*), COUNT(DISTINCT seq), COUNT(DISTINCT iban),
			MIN(seq), MAX(seq), (SELECT completed FROM alias_orders WHERE id = $1) FROM account_aliases WHERE order_id = $1`, id).
			Scan(&rows, &places, &ibans, &first, &last, &completed)
		if err != nil {
			t.Fatal(err)
		}
		if rows != count || places != count || ibans != count || first != 0 || last != count-1 || completed != count {
			t.Fatalf("order %s: %d rows, %d places, %d IBANs, seq %d..%d, completed %d; want %d of each",
				id, rows, places, ibans, first, last, completed, count)
		}
	}
	var dup int
	if err := read.QueryRowContext(context.Background(), `SELECT COUNT(*) - COUNT(DISTINCT iban) FROM account_aliases`).Scan(&dup); err != nil || dup != 0 {
		t.Fatalf("%d IBANs issued twice (%v)", dup, err)
	}
}
