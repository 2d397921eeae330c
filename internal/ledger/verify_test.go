package ledger_test

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"math/big"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/bankrail/bankrail/internal/clock"

	"github.com/bankrail/bankrail/internal/ledger"
)

// TestSumIsExactAndSeesOverflow: a Sum of any int64 amounts is their
// exact sum (math/big) when it fits in an int64, and says so when it does
// not.
func TestSumIsExactAndSeesOverflow(t *testing.T) {
	t.Parallel()
	edges := rapid.SampledFrom([]int64{math.MaxInt64, math.MinInt64, 1 << 32, -(1 << 32), 1<<32 - 1, -1, 0, 1, math.MaxInt64 - 1})
	rapid.Check(t, func(t *rapid.T) {
		amounts := rapid.SliceOfN(rapid.OneOf(rapid.Int64(), edges), 0, 12).Draw(t, "amounts")
		var s ledger.Sum
		want := new(big.Int)
		for _, a := range amounts {
			s = s.Add(a)
			want.Add(want, big.NewInt(a))
		}
		got, ok := s.Int64()
		if ok != want.IsInt64() || ok && got != want.Int64() {
			t.Fatalf("sum of %v: %d %v, want %v (fits: %v)", amounts, got, ok, want, want.IsInt64())
		}
	})
}

// books is a BooksReader over slices.
type books struct {
	accounts []ledger.AccountSums
	entries  []ledger.EntrySums
}

func (b books) Accounts(_ context.Context, fn func(ledger.AccountSums) error) error {
	for _, a := range b.accounts {
		if err := fn(a); err != nil {
			return err
		}
	}
	return nil
}

func (b books) Entries(_ context.Context, fn func(ledger.EntrySums) error) error {
	for _, e := range b.entries {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

func (b books) Count(context.Context) (int64, int64, error) { return int64(len(b.entries)), 0, nil }

func (b books) Read(ctx context.Context, fn func(ledger.BooksReader) error) error { return fn(b) }

func sumOf(amounts ...int64) ledger.Sum {
	var s ledger.Sum
	for _, a := range amounts {
		s = s.Add(a)
	}
	return s
}

// TestVerifyComparesEveryBucket: each bucket of an account against its
// postings, a bucket the ledger does not know, postings of an account not
// in the books; entries that sum to zero (parts crossing 2³²) are not
// findings.
func TestVerifyComparesEveryBucket(t *testing.T) {
	t.Parallel()
	b := books{
		accounts: []ledger.AccountSums{
			{AccountID: "ok", Exists: true, Cached: ledger.Balance{Available: 5, Held: 2},
				Summed: map[ledger.Bucket]ledger.Sum{ledger.Available: sumOf(10, -5), ledger.Held: sumOf(2)}},
			{AccountID: "bad", Exists: true, Cached: ledger.Balance{Pending: 3},
				Summed: map[ledger.Bucket]ledger.Sum{ledger.Held: sumOf(1), "SIDEWAYS": sumOf(4)}},
			{AccountID: "ghost", Summed: map[ledger.Bucket]ledger.Sum{ledger.Available: sumOf(math.MaxInt64, 1)}},
		},
		entries: []ledger.EntrySums{
			{EntryID: "e1", Currency: "EUR", Summed: sumOf(1<<32, -(1<<32 - 1), -1)},
			{EntryID: "e2", Currency: "GBP", Summed: sumOf(7)},
		},
	}
	r, err := ledger.VerifyBooks(context.Background(), b, t0)
	if err != nil {
		t.Fatal(err)
	}
	want := []ledger.BalanceDiscrepancy{
		{AccountID: "bad", Bucket: ledger.Pending, Cached: 3, Summed: 0},
		{AccountID: "bad", Bucket: ledger.Held, Cached: 0, Summed: 1},
		{AccountID: "bad", Bucket: "SIDEWAYS", Cached: 0, Summed: 4},
		{AccountID: "ghost", Bucket: ledger.Available, Overflow: true, NoAccount: true},
	}
	if r.Accounts != 3 || r.BalanceDiscrepancies != 4 || len(r.Balances) != 4 {
		t.Fatalf("report %+v", r)
	}
	for i, w := range want {
		if r.Balances[i] != w {
			t.Errorf("discrepancy %d: %+v, want %+v", i, r.Balances[i], w)
		}
	}
	if r.EntryDiscrepancies != 1 || r.Imbalanced[0] != (ledger.EntryDiscrepancy{EntryID: "e2", Currency: "GBP", Imbalance: 7}) {
		t.Fatalf("entries %+v", r.Imbalanced)
	}
	if r.Balanced() || r.Discrepancies() != 5 {
		t.Fatalf("balanced %v, %d discrepancies", r.Balanced(), r.Discrepancies())
	}
}

// recorder is a VerifyObserver.
type recorder struct {
	reports []ledger.Report
	failed  int
}

func (r *recorder) BooksVerified(rep ledger.Report) { r.reports = append(r.reports, rep) }
func (r *recorder) BooksVerificationFailed()        { r.failed++ }

// TestCheckerLogsEachDiscrepancyAtError: a run whose books do not balance
// tells the observer and logs every discrepancy at ERROR with its account
// and bucket or its entry.
func TestCheckerLogsEachDiscrepancyAtError(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	obs := &recorder{}
	b := books{
		accounts: []ledger.AccountSums{{AccountID: "acct-1", Exists: true, Cached: ledger.Balance{Available: 9},
			Summed: map[ledger.Bucket]ledger.Sum{ledger.Available: sumOf(8)}}},
		entries: []ledger.EntrySums{{EntryID: "entry-1", Currency: "EUR", Summed: sumOf(2)}},
	}
	c := ledger.NewChecker(b, clock.NewFake(t0), slog.New(slog.NewTextHandler(&buf, nil)), obs)
	if err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(obs.reports) != 1 || obs.reports[0].Discrepancies() != 2 || !obs.reports[0].CheckedAt.Equal(t0) {
		t.Fatalf("observed %+v", obs.reports)
	}
	for _, w := range []string{"level=ERROR msg=\"the books do not balance\" discrepancies=2",
		"account=acct-1 bucket=AVAILABLE cached=9 summed=8", "entry=entry-1 currency=EUR imbalance=2"} {
		if !strings.Contains(buf.String(), w) {
			t.Errorf("the log does not say %q:\n%s", w, buf.String())
		}
	}
}
