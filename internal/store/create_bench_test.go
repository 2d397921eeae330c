package store_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/store"
)

// BenchmarkCreateKeyed measures the store's side of a keyed POST /payments:
// 32 goroutines each creating payments in units of work (group commit)
// that insert the payment and store its Idempotency-Key with the answer
// (a Fresh ticket), as payment.Service.Create does. It reports CPU per
// create of this process (cpu-us/op) and, on PostgreSQL, of the
// database's backends of this run (db-cpu-us/op; read from /proc, so only
// when the server runs on this machine). The machine's load moves ns/op;
// the CPU figures move less. Old and new builds side by side:
//
//	go test -run '^$' -bench CreateKeyed -benchtime 3000x ./internal/store/
func BenchmarkCreateKeyed(b *testing.B) {
	for _, e := range dbtest.Engines {
		b.Run(string(e), func(b *testing.B) {
			db := dbtest.New(b, e)
			app := fmt.Sprintf("create-bench-%d", time.Now().UnixNano())
			if db.DatabaseURL != "" { // its backends told from the other users' of the database
				sep := "?"
				if strings.Contains(db.DatabaseURL, "?") {
					sep = "&"
				}
				db.DatabaseURL += sep + "application_name=" + app
			}
			s := openBench(b, db)
			ctx := context.Background()
			body := []byte(strings.Repeat(`{"id":"x","status":"NEW_PAYMENT"}`, 40))
			var seq atomic.Int64
			create := func() error {
				i := seq.Add(1)
				id := fmt.Sprintf("25000000-0000-4000-8000-%012d", i)
				p := testPayment(id, benchCustomers[1], fmt.Sprintf("K%09d", i), t0.Add(time.Duration(i)*time.Microsecond))
				c := idempotency.Claim{CustomerID: p.CustomerID, Key: "key-" + id, RequestHash: "hash", Token: "token",
					Now: t0, TTL: 24 * time.Hour, Lease: 15 * time.Second}
				return s.InTx(ctx, func(tx *store.Tx) error {
					if err := tx.Idempotency().Complete(ctx, idempotency.Ticket{CustomerID: c.CustomerID, Key: c.Key,
						Token: c.Token, Fresh: &c}, idempotency.Result{ResourceID: id, Body: body}); err != nil {
						return err
					}
					return tx.Payments().Create(ctx, p)
				})
			}
			for range 50 { // prepared statements, warm caches
				if err := create(); err != nil {
					b.Fatal(err)
				}
			}
			backends := backendPIDs(b, s, e, app)
			dbBefore := backendsCPU(backends)
			cpuBefore := processCPUTime()
			b.SetParallelism(16) // 32 goroutines on 2 cores
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := create(); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			b.ReportMetric(float64((processCPUTime()-cpuBefore).Microseconds())/float64(b.N), "cpu-us/op")
			if backends != nil {
				b.ReportMetric(float64((backendsCPU(backendPIDs(b, s, e, app))-dbBefore).Microseconds())/float64(b.N), "db-cpu-us/op")
			}
		})
	}
}

// processCPUTime is this process's user and system CPU time so far.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// backendPIDs are the PostgreSQL backends of the store, connected under
// the application name app (nil on SQLite, or when their /proc files are
// not on this machine).
func backendPIDs(b *testing.B, s *store.Store, e dbtest.Engine, app string) []int {
	b.Helper()
	if e != dbtest.Postgres {
		return nil
	}
	_, read := s.Pools()
	rows, err := read.QueryContext(context.Background(), `SELECT pid FROM pg_stat_activity WHERE application_name = $1`, app)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var pids []int
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			b.Fatal(err)
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// backendsCPU is the CPU time the processes pids used so far (/proc).
func backendsCPU(pids []int) time.Duration {
	var total time.Duration
	for _, pid := range pids {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64) // utime: field 14 of stat
		k, _ := strconv.ParseInt(f[12], 10, 64) // stime: field 15
		total += time.Duration(u+k) * 10 * time.Millisecond
	}
	return total
}
