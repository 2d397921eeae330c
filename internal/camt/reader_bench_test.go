package camt

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/bankrail/bankrail/internal/camt/camttest"
)

// benchDoc is a camt.053.001.08 of n credits shaped as bankrail-bench
// statements writes them.
func benchDoc(tb testing.TB, n int) []byte {
	tb.Helper()
	entries := make([]camttest.Entry, n)
	for i := range entries {
		entries[i] = camttest.Entry{AcctSvcrRef: fmt.Sprintf("BENCH-%09d", i), Minor: int64(100 + i%997), Credit: true,
			Txs: []camttest.Tx{{Ustrd: []string{fmt.Sprintf("unknown %d", i)}, Name: "Payer", IBAN: "FR1420041010050500013M02606"}}}
	}
	var buf bytes.Buffer
	if err := camttest.Write(&buf, 53, 8, "BENCH", []camttest.Stmt{{IBAN: "DE89370400440532013000", Entries: entries}}); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// discard is a Handler that drops what it is handed.
type discard struct{}

func (discard) Report(Report) error       { return nil }
func (discard) Entry(Report, Entry) error { return nil }

// BenchmarkRead reads a 20,000-entry statement with the scanner (new) and
// with encoding/xml (std), for the ratio in one run:
//
//	go test -run '^$' -bench Read -count 5 ./internal/camt/
func BenchmarkRead(b *testing.B) {
	const n = 20000
	doc := benchDoc(b, n)
	for _, r := range []struct {
		name string
		read func(io.Reader, Handler) (Message, error)
	}{{"new", Read}, {"std", readStd}} {
		b.Run(r.name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			cpu0 := cpuTime(b)
			for b.Loop() {
				if _, err := r.read(bytes.NewReader(doc), discard{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/entry")
			// the process's CPU time, GC included: less noisy than the
			// elapsed time on a loaded machine
			if cpu0 >= 0 {
				b.ReportMetric(float64((cpuTime(b)-cpu0).Nanoseconds())/float64(b.N*n), "cpu-ns/entry")
			}
		})
	}
}
