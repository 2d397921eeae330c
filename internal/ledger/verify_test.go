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
// not. Amounts come in runs of one sign (so the low parts pile up past
// 2³² and must carry into the high part) and near the limits: ±MaxInt64
// and its neighbours, amounts whose low part is near ±(2³²-1), and
// amounts that bring the sum back near a limit with high and low parts
// pulling apart (landNear), where a Sum that did not carry its low part
// would call a fitting sum an overflow.
func TestSumIsExactAndSeesOverflow(t *testing.T) {
	t.Parallel()
	const base = int64(ledger.SplitBase)
	edges := rapid.SampledFrom([]int64{math.MaxInt64, math.MinInt64, base, -base, base - 1, -(base - 1), -1, 0, 1, math.MaxInt64 - 1})
	nearLimit := rapid.Custom(func(t *rapid.T) int64 {
		d := rapid.Int64Range(0, 4*base).Draw(t, "d")
		return rapid.SampledFrom([]int64{math.MaxInt64 - d, math.MinInt64 + d}).Draw(t, "near")
	})
	fullLow := rapid.Custom(func(t *rapid.T) int64 { // low part near ±(2³²-1), high part small
		a := rapid.Int64Range(0, 4).Draw(t, "high")*base + base - 1 - rapid.Int64Range(0, 16).Draw(t, "d")
		return a * rapid.SampledFrom([]int64{1, -1}).Draw(t, "sign")
	})
	amount := rapid.OneOf(rapid.Int64(), edges, nearLimit, fullLow)
	rapid.Check(t, func(t *rapid.T) {
		var amounts []int64
		for range rapid.IntRange(0, 6).Draw(t, "runs") {
			a, n := amount.Draw(t, "amount"), rapid.IntRange(1, 40).Draw(t, "times")
			for range n {
				amounts = append(amounts, a)
			}
		}
		want := sumBig(amounts)
		if rapid.Bool().Draw(t, "back near a limit") {
			amounts = landNear(t, amounts, want)
			want = sumBig(amounts)
		}
		var s ledger.Sum
		for _, a := range amounts {
			s = s.Add(a)
		}
		got, ok := s.Int64()
		if ok != want.IsInt64() || ok && got != want.Int64() {
			t.Fatalf("sum of %v: %d %v, want %v (fits: %v)", amounts, got, ok, want, want.IsInt64())
		}
	})
}

// sumBig is the exact sum of amounts.
func sumBig(amounts []int64) *big.Int {
	sum := new(big.Int)
	for _, a := range amounts {
		sum.Add(sum, big.NewInt(a))
	}
	return sum
}

// landNear appends to amounts (which sum to sum) a run of amounts whose
// low parts are near -sign·(2³²-1) and high parts 0, then amounts of high
// parts only (sign·(2³¹-1)·2³² each, and one remainder) that bring the
// sum to within 2·2³² of the limit of sign, on either side: the high
// parts alone pass 2³¹ by about the run's length, and only the low
// parts' carry brings a fitting sum back.
func landNear(t *rapid.T, amounts []int64, sum *big.Int) []int64 {
	const base = int64(ledger.SplitBase)
	sign := rapid.SampledFrom([]int64{1, -1}).Draw(t, "sign")
	low := -sign * (base - 1 - rapid.Int64Range(0, 16).Draw(t, "d"))
	rest := new(big.Int).Set(sum)
	for range rapid.IntRange(1, 40).Draw(t, "lows") {
		amounts = append(amounts, low)
		rest.Add(rest, big.NewInt(low))
	}
	limit := int64(math.MaxInt64)
	if sign < 0 {
		limit = math.MinInt64
	}
	target := new(big.Int).Sub(big.NewInt(limit), big.NewInt(sign*rapid.Int64Range(-2*base, 2*base).Draw(t, "off")))
	rest.Sub(target, rest) // what the high parts add
	step := big.NewInt(int64(rest.Sign()) * (math.MaxInt64 / base) * base)
	for new(big.Int).Abs(rest).Cmp(new(big.Int).Abs(step)) > 0 {
		amounts = append(amounts, step.Int64())
		rest.Sub(rest, step)
	}
	return append(amounts, rest.Int64())
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
