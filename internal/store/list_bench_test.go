package store_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/alias"
	"github.com/bankrail/bankrail/internal/channel"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/mandate"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/paging"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/payout"
	"github.com/bankrail/bankrail/internal/report"
	"github.com/bankrail/bankrail/internal/store"
)

// listSizes are the row counts BenchmarkListPage1 measures, smallest
// (the reference) first: -list.sizes=1000,100000,1000000 for the full run.
var listSizes = flag.String("list.sizes", "1000,100000", "row counts of BenchmarkListPage1, the reference first")

// totalSizes are the payment counts BenchmarkListTotal measures.
var totalSizes = flag.String("total.sizes", "10000,100000", "payment counts of BenchmarkListTotal")

// The customers of the list benchmark: a PSP (the viewer) and three
// merchants below it; rows go round-robin to the four.
var benchCustomers = []string{
	"b0000000-0000-4000-8000-000000000001", "b0000000-0000-4000-8000-000000000002",
	"b0000000-0000-4000-8000-000000000003", "b0000000-0000-4000-8000-000000000004",
}

// Fixed rows the seeded ones refer to.
const (
	benchApp     = "b0000000-0000-4000-8000-0000000000a1"
	benchChannel = "b0000000-0000-4000-8000-0000000000c1"
	benchAccount = "b0000000-0000-4000-8000-0000000000d1" // the transactions list's account
)

// benchList is one list of the benchmark: how its rows are inserted (a
// statement over the numbers i of the CTE n, with the time t of row i and
// its customer c) and its page 1 as the API reads it.
type benchList struct {
	name   string
	insert string
	page1  func(ctx context.Context, s *store.Store) (listStats, error)
	fixed  int // rows of the list that openBench makes (a second before the seeded ones)
}

// listStats is what a test checks of page 1: its length and the total.
type listStats struct {
	items, total int
}

// statsOf reads page 1's stats.
func statsOf[T any](p paging.Page[T], err error) (listStats, error) {
	return listStats{len(p.Items), p.Total}, err
}

// rowsCTE numbers rows from $1 to $2 (exclusive); t and c are row i's
// time (a second apart, newest last) and customer.
const rowsCTE = `WITH RECURSIVE n(i) AS (SELECT CAST($1 AS BIGINT) UNION ALL SELECT i + 1 FROM n WHERE i + 1 < CAST($2 AS BIGINT)),
	r(i, t, c) AS (SELECT i, 1767225600000000 + i * 1000000, CASE i % 4 WHEN 0 THEN CAST($3 AS TEXT) WHEN 1 THEN CAST($4 AS TEXT)
		WHEN 2 THEN CAST($5 AS TEXT) ELSE CAST($6 AS TEXT) END FROM n) `

// accountOf is the Connect account of customer c (one each, seeded first).
const accountOf = `'b1-' || c`

// paymentsInsert seeds payments (the benchLists' first and
// BenchmarkListTotal's rows).
const paymentsInsert = `INSERT INTO payments (id, customer_id, client_id, user_id, channel, payment_system, status, currency, amount,
		internal_reference, payment_reference, unique_reference, institution_id, short_code, checkout_token, request, created_at, updated_at)
		SELECT 'p' || i, c, 'bench', 'u', 'api', 'OPEN_BANKING_EU', 'NEW_PAYMENT', 'EUR', 100, 'o' || i, 'ref', 'BR' || i, '',
			'S' || i, '', '{}', t, t FROM r`

var benchLists = []benchList{
	{"payments", paymentsInsert,
		func(ctx context.Context, s *store.Store) (listStats, error) {
			return statsOf(s.Payments().ListPage(ctx, benchCustomers[0], payment.ListFilter{Page: 1, Limit: 25}))
		}, 0},
	{"payouts", `INSERT INTO ledger_transactions (id, account_id, customer_id, type, operation, status, amount, currency, created_at, updated_at)
		SELECT 'po' || i, ` + accountOf + `, c, 'PAYOUT', 'OUTGOING', 'COMPLETED', 100, 'EUR', t, t FROM r;
		INSERT INTO payouts (id, account_id, customer_id, client_id, type, amount, currency, payment_reference,
			beneficiary_name, beneficiary_iban, status, outcome, verification_id, created_at, updated_at)
		SELECT 'po' || i, ` + accountOf + `, c, 'bench', 'SEPA', 100, 'EUR', 'ref', 'Jane Doe', 'DE89370400440532013000',
			'COMPLETED', '', 'v', t, t FROM r`,
		func(ctx context.Context, s *store.Store) (listStats, error) {
			return statsOf(s.Payouts().List(ctx, benchCustomers[0], payout.Filter{Page: 1, Limit: 25}))
		}, 0},
	{"mandates", `INSERT INTO mandates (id, customer_id, client_id, type, status, currency, payer_name, valid_from, token, version, created_at, updated_at)
		SELECT 'm' || i, c, 'bench', 'PAYTO', 'ACTIVE', 'AUD', 'Payer', t, 'tok', 1, t, t FROM r`,
		func(ctx context.Context, s *store.Store) (listStats, error) {
			return statsOf(s.Mandates().List(ctx, benchCustomers[0], mandate.ListFilter{Page: 1, Limit: 25}))
		}, 0},
	{"reports", `INSERT INTO reports (id, customer_id, client_id, user_id, type, status, params, created_at)
		SELECT 'r' || i, c, 'bench', '', 'AUDIT_LOG', 'REPORT_REQUESTED', '{}', t FROM r`,
		func(ctx context.Context, s *store.Store) (listStats, error) {
			return statsOf(s.Reports().List(ctx, benchCustomers[0], report.ListFilter{Page: 1, Limit: 25}))
		}, 0},
	{"accounts", `INSERT INTO ledger_accounts (id, customer_id, type, status, currency, iban, created_at)
		SELECT 'a' || i, c, 'CONNECT', 'ACTIVE', 'EUR', 'XA' || i, t FROM r`,
		func(ctx context.Context, s *store.Store) (listStats, error) {
			return statsOf(s.Ledger().ListAccounts(ctx, benchCustomers[0], ledger.AccountFilter{Page: 1, Limit: 25}))
		}, len(benchCustomers) + 1},
	{"transactions", `INSERT INTO ledger_transactions (id, account_id, customer_id, type, operation, status, amount, currency, created_at, updated_at)
		SELECT 't' || i, '` + benchAccount + `', $3, 'MANUAL_CREDIT', 'INCOMING', 'COMPLETED', 100, 'EUR', t, t FROM r`,
		func(ctx context.Context, s *store.Store) (listStats, error) {
			return statsOf(s.Ledger().ListTransactions(ctx, benchCustomers[0], benchAccount, ledger.TxFilter{Page: 1, Limit: 25}))
		}, 0},
	{"channels", `INSERT INTO channels (id, customer_id, client_id, token, network, currency, address, status, end_user_reference, created_at)
		SELECT 'ch' || i, c, 'bench', 'USDC', 'ETH', 'EUR', 'addr' || i, 'ACTIVE', 'u', t FROM r`,
		func(ctx context.Context, s *store.Store) (listStats, error) {
			return statsOf(s.Channels().List(ctx, benchCustomers[0], channel.ListFilter{Page: 1, Limit: 25}))
		}, 1},
	{"channel payments", `INSERT INTO channel_payments (id, channel_id, customer_id, status, end_user_reference, hash, paid_micros, token,
			detected_at, created_at, updated_at)
		SELECT 'cp' || i, '` + benchChannel + `', $3, 'PROCESSING', 'u', 'h' || i, 1000000, 'USDC', t, t, t FROM r`,
		func(ctx context.Context, s *store.Store) (listStats, error) {
			return statsOf(s.ChannelPayments().List(ctx, benchChannel, 1, 25, nil))
		}, 0},
	{"account aliases", `INSERT INTO account_aliases (id, account_id, customer_id, order_id, seq, iban, created_at, updated_at)
		SELECT 'al' || i, ` + accountOf + `, c, 'b2-' || c, i, 'XL' || i, t, t FROM r`,
		func(ctx context.Context, s *store.Store) (listStats, error) {
			return statsOf(s.Aliases().List(ctx, benchCustomers[0], alias.Filter{Page: 1, Limit: 25}))
		}, 0},
	{"notifications", `INSERT INTO notifications (id, customer_id, application_id, ordering_key, seq, body, status, next_attempt_at, created_at)
		SELECT 'n' || i, c, '` + benchApp + `', 'n' || i, 1, '{}', 'DELIVERED', t, t FROM r`,
		func(ctx context.Context, s *store.Store) (listStats, error) {
			p, err := s.ListNotifications(ctx, benchCustomers[0], notify.Filter{Page: 1, Limit: 25})
			return listStats{len(p.Items), p.TotalItems}, err
		}, 0},
}

// BenchmarkListPage1 measures page 1 (25 items, the PSP's view over its
// three merchants) of every list at each of -list.sizes rows, on both
// engines: one database per size, each list seeded by bulk INSERT ...
// SELECT. Each iteration is a round that reads page 1 once at every size
// in turn (alternating, so that the machine's noise falls on all alike);
// ns/op is a round, and x-N is the median time at N rows as a multiple of
// the median at the smallest size, measured in the same rounds (issue 16's
// target: x-1000000 at most 2 against 1,000).
//
//	timeout 3000 go test -run '^$' -bench BenchmarkListPage1 -benchtime 100x ./internal/store/ -list.sizes=1000,100000,1000000
func BenchmarkListPage1(b *testing.B) {
	var sizes []int
	for _, f := range strings.Split(*listSizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			b.Fatalf("-list.sizes: %q is not a row count", f)
		}
		sizes = append(sizes, n)
	}
	for _, e := range dbtest.Engines {
		b.Run(string(e), func(b *testing.B) {
			stores := make([]*store.Store, len(sizes))
			for i := range sizes {
				stores[i] = openBench(b, dbtest.Migrated(b, e))
			}
			for _, l := range benchLists {
				seeded := false
				b.Run(strings.ReplaceAll(l.name, " ", "_"), func(b *testing.B) {
					ctx := context.Background()
					if !seeded {
						for i, size := range sizes {
							seed(b, stores[i], l, 0, size)
						}
						seeded = true
					}
					times := make([][]time.Duration, len(sizes))
					b.ResetTimer()
					for range b.N {
						for i, s := range stores {
							start := time.Now()
							if st, err := l.page1(ctx, s); err != nil || st.items != 25 {
								b.Fatalf("page 1 of %s at %d rows: %d items, %v", l.name, sizes[i], st.items, err)
							}
							times[i] = append(times[i], time.Since(start))
						}
					}
					b.StopTimer()
					for i, size := range sizes[1:] {
						b.ReportMetric(float64(median(times[i+1]))/float64(median(times[0])), fmt.Sprintf("x-%d", size))
					}
					b.ReportMetric(float64(median(times[0]))/1e6, fmt.Sprintf("ms-%d", sizes[0]))
				})
			}
		})
	}
}

// median is the median of ds (which it sorts).
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// openBench opens a migrated store with the benchmark's customers, their
// Connect accounts and alias orders, an application and a channel.
func openBench(b testing.TB, db dbtest.DB) *store.Store {
	b.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, store.Options{DatabaseURL: db.DatabaseURL, SQLitePath: db.SQLitePath}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		b.Fatalf("open store: %v", err)
	}
	b.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx); err != nil {
		b.Fatalf("migrate: %v", err)
	}
	for i, id := range benchCustomers {
		c := identity.Customer{ID: id, Name: "bench " + id, CreatedAt: t0}
		if i > 0 {
			c.ParentID = benchCustomers[0]
		}
		if err := s.CreateCustomer(ctx, c); err != nil {
			b.Fatal(err)
		}
		if err := s.Exec(ctx, `INSERT INTO ledger_accounts (id, customer_id, type, status, currency, iban, created_at)
			VALUES ('b1-' || $1, $1, 'CONNECT', 'ACTIVE', 'EUR', 'XB' || $1, 1767225599000000)`, id); err != nil {
			b.Fatal(err)
		}
		if err := s.Exec(ctx, `INSERT INTO alias_orders (id, account_id, customer_id, status, requested, created_at, updated_at)
			VALUES ('b2-' || $1, 'b1-' || $1, $1, 'COMPLETED', 1000, 0, 0)`, id); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.CreateApplication(ctx, identity.Application{ID: benchApp, CustomerID: benchCustomers[0], ClientID: "bench",
		ClientSecretHash: "x", NotificationSecret: "s", CreatedAt: t0}); err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO ledger_accounts (id, customer_id, type, status, currency, iban, created_at)
			VALUES ('` + benchAccount + `', $1, 'CONNECT', 'ACTIVE', 'EUR', 'XBTX', 1767225599000000)`,
		`INSERT INTO channels (id, customer_id, client_id, token, network, currency, address, status, end_user_reference, created_at)
			VALUES ('` + benchChannel + `', $1, 'bench', 'USDC', 'ETH', 'EUR', 'addr-bench', 'ACTIVE', 'u', 1767225599000000)`,
	} {
		if err := s.Exec(ctx, q, benchCustomers[0]); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// insertInto finds the tables a seeding statement fills.
var insertInto = regexp.MustCompile(`INSERT INTO (\w+)`)

// seed inserts rows from to to of l, in batches, then refreshes the
// planner's statistics of its tables.
func seed(b testing.TB, s *store.Store, l benchList, from, to int) {
	b.Helper()
	ctx := context.Background()
	const batch = 100_000
	for lo := from; lo < to; lo += batch {
		hi := min(lo+batch, to)
		for _, stmt := range strings.Split(l.insert, ";") {
			args := []any{lo, hi, benchCustomers[0], benchCustomers[1], benchCustomers[2], benchCustomers[3]}
			if err := s.Exec(ctx, rowsCTE+stmt, args...); err != nil {
				b.Fatalf("seed %s %d..%d: %v", l.name, lo, hi, err)
			}
		}
	}
	for _, m := range insertInto.FindAllStringSubmatch(l.insert, -1) {
		if m[1] == "payments" { // rows the store did not write: counted here (payment_counts.go)
			recountPayments(b, s)
		}
		if err := s.Exec(ctx, `ANALYZE `+m[1]); err != nil {
			b.Fatalf("analyze %s: %v", m[1], err)
		}
	}
}

// Every list's total is exact past 1,000 rows (issue 28 item 6: it was an
// estimate there); a page is full either way.
func TestListTotalExact(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := openBench(t, db)
		ctx := context.Background()
		for _, l := range benchLists {
			seeded := 0
			for _, size := range []int{1000, 3001} {
				seed(t, s, l, seeded, size)
				seeded = size
				st, err := l.page1(ctx, s)
				if err != nil || st.items != 25 {
					t.Fatalf("%s at %d: %+v %v", l.name, size, st, err)
				}
				if l.name == "channel payments" { // a list without counts
					continue
				}
				if want := size + l.fixed; st.total != want {
					t.Errorf("%s at %d rows: total %d, want %d", l.name, size, st.total, want)
				}
			}
		}
	})
}

// recountPayments sets payment_counts to the payments there are, for rows
// a test wrote with SQL of its own (the store counts only the payments it
// writes).
func recountPayments(tb testing.TB, s *store.Store) {
	tb.Helper()
	if err := s.RecountPayments(context.Background()); err != nil {
		tb.Fatal(err)
	}
}
