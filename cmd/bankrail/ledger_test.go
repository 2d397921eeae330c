package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/money"
)

// onBooks opens the database of storage and runs fn on it.
func onBooks(t *testing.T, storage []string, fn func(context.Context, *app.App) error) {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir, cfg.DatabaseURL, cfg.Mode = storage[1], storage[3], config.Production
	a, err := app.Admin(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := fn(context.Background(), a); err != nil {
		t.Fatal(err)
	}
}

// TestLedgerVerifyExitsNonZeroOnUnbalancedBooks: books written by the
// ledger balance (exit 0, a summary); a cached balance doctored behind its
// back is printed with both numbers and exits 3, as text and as JSON.
func TestLedgerVerifyExitsNonZeroOnUnbalancedBooks(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		storage, admin := adminOn(t, db)
		const shop = "7d000000-0000-4000-8000-000000000002"
		admin("customer", "create", "--name", "Books Shop", "--id", shop)
		m := regexp.MustCompile(`account (\S+) created`).FindStringSubmatch(admin("account", "create", "--customer", shop, "--currency", "EUR"))
		if m == nil {
			t.Fatal("no account created")
		}
		account := m[1]
		onBooks(t, storage, func(ctx context.Context, a *app.App) error {
			now := time.Now()
			tx := ledger.Transaction{ID: uuid.NewString(), AccountID: account, CustomerID: shop, Type: ledger.TypeManualCredit,
				Operation: ledger.Incoming, Status: ledger.TxCompleted, Amount: money.Must(money.New(1250, "EUR")), CreatedAt: now, UpdatedAt: now}
			e, err := ledger.Open(tx, uuid.NewString())
			if err != nil {
				return err
			}
			return a.Store().Ledger().Record(ctx, tx, e)
		})
		verify := append([]string{"ledger", "verify"}, storage...)
		code, out, errOut := runCmd(t, verify...)
		if code != 0 || !strings.Contains(out, "verified 1 accounts, 1 entries, 2 postings") || !strings.Contains(out, "the books balance") {
			t.Fatalf("balanced books: exit %d\n%s%s", code, out, errOut)
		}

		onBooks(t, storage, func(ctx context.Context, a *app.App) error {
			write, _ := a.Store().Pools()
			_, err := write.ExecContext(ctx, `UPDATE ledger_accounts SET available = available + 5 WHERE id = $1`, account)
			return err
		})
		code, out, errOut = runCmd(t, verify...)
		if code != 3 || !strings.Contains(out, "the books do NOT balance: 1 discrepancies") ||
			!strings.Contains(out, "account "+account+" AVAILABLE: cached 1255, postings sum to 1250") ||
			!strings.Contains(errOut, "the books do not balance: 1 discrepancies") {
			t.Fatalf("doctored books: exit %d\n%s%s", code, out, errOut)
		}
		code, out, errOut = runCmd(t, append(verify, "--json")...)
		var r struct {
			Balanced bool                        `json:"balanced"`
			Balances []ledger.BalanceDiscrepancy `json:"balances"`
			Entries  int64                       `json:"entries"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil || code != 3 || r.Balanced || r.Entries != 1 ||
			len(r.Balances) != 1 || r.Balances[0] != (ledger.BalanceDiscrepancy{AccountID: account, Bucket: ledger.Available, Cached: 1255, Summed: 1250}) {
			t.Fatalf("--json: exit %d %v\n%s%s", code, err, out, errOut)
		}
	})
}
