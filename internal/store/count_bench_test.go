package store_test

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/store"
)

// totalVacuum vacuums the payments (PostgreSQL) before BenchmarkListTotal
// measures.
var totalVacuum = flag.Bool("total.vacuum", false, "VACUUM the payments (PostgreSQL) before BenchmarkListTotal")

// BenchmarkListTotal measures GET /payments' exact total (the PSP's view
// over its three merchants, no filter: the sum of payment_counts) and the
// exact count of every index entry (what a filtered list pays, and what the
// total would cost without payment_counts) against the estimate they
// replaced (issue 28 item 6), at each of -total.sizes payments, on both
// engines: each iteration is a round that reads the three, at every size,
// in turn; ns/op is a round; estimate-ms-N, counts-ms-N and index-ms-N are
// the medians at N payments, counts-x-N and index-x-N those medians as
// multiples of the estimate's.
//
//	go test -run '^$' -bench BenchmarkListTotal -benchtime 50x ./internal/store/
func BenchmarkListTotal(b *testing.B) {
	var sizes []int
	for _, f := range strings.Split(*totalSizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			b.Fatalf("-total.sizes: %q is not a row count", f)
		}
		sizes = append(sizes, n)
	}
	payments := benchList{name: "payments", insert: paymentsInsert}
	for _, e := range dbtest.Engines {
		b.Run(string(e), func(b *testing.B) {
			ctx := context.Background()
			stores := make([]*store.Store, len(sizes))
			for i, size := range sizes {
				stores[i] = openBench(b, dbtest.New(b, e))
				seed(b, stores[i], payments, 0, size)
				if e == dbtest.Postgres && *totalVacuum { // as autovacuum leaves a table that inserts filled: all-visible
					if err := stores[i].Exec(ctx, `VACUUM payments`); err != nil {
						b.Fatal(err)
					}
				}
				if n, err := stores[i].ExactPaymentsTotal(ctx, benchCustomers[0]); err != nil || n != size {
					b.Fatalf("exact total at %d: %d, %v", size, n, err)
				}
			}
			ways := []string{"estimate", "counts", "index"}
			times := make([][][]time.Duration, len(ways)) // way, size, round
			for w := range ways {
				times[w] = make([][]time.Duration, len(sizes))
			}
			b.ResetTimer()
			for range b.N {
				for i, s := range stores {
					for w, total := range []func(context.Context, string) (int, error){
						s.EstimatePaymentsTotal, s.ExactPaymentsTotal, s.IndexCountPaymentsTotal} {
						start := time.Now()
						if _, err := total(ctx, benchCustomers[0]); err != nil {
							b.Fatalf("%s at %d: %v", ways[w], sizes[i], err)
						}
						times[w][i] = append(times[w][i], time.Since(start))
					}
				}
			}
			b.StopTimer()
			for i, size := range sizes {
				est := median(times[0][i])
				b.ReportMetric(float64(est)/1e6, fmt.Sprintf("estimate-ms-%d", size))
				for w := 1; w < len(ways); w++ {
					m := median(times[w][i])
					b.ReportMetric(float64(m)/1e6, fmt.Sprintf("%s-ms-%d", ways[w], size))
					b.ReportMetric(float64(m)/float64(est), fmt.Sprintf("%s-x-%d", ways[w], size))
				}
			}
		})
	}
}
