package main

// The floor phase (issue 31, item 3): what the engine itself needs to store
// a create's payment row. It copies the newest payment row (every column as
// stored) and INSERTs it again and again on bankrail's own writer pool,
// fresh values only in the columns that must be unique, in transactions of
// as many rows as the create phases committed per transaction: the plain
// INSERT of the same row in the same engine, beside which a create's cost
// to the writer is a figure (creates per CPU second of the writer ÷ the
// floor's rows per CPU second of its thread).

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/ids"
)

// floorFresh are the payments columns that are unique, given fresh values
// in each copy: the id as bankrail makes it (ids.New, time-ordered: the
// primary key's index is appended to, as a create's), the short code
// random (as a create's).
var floorFresh = map[string]func(n int) string{"id": func(int) string { return ids.New() }, "short_code": freshText}

// floorRow is the row copied and its INSERT.
type floorRow struct {
	cols   []string
	insert string
	vals   []any
	fresh  map[int]int // column index: length of the value copied
}

// loadFloorRow reads the newest payment row.
func loadFloorRow(ctx context.Context, db *sql.DB) (*floorRow, error) {
	rows, err := db.QueryContext(ctx, `SELECT * FROM payments ORDER BY created_at DESC LIMIT 1`)
	if err != nil {
		return nil, fmt.Errorf("floor: read a payment: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	if !rows.Next() {
		return nil, fmt.Errorf("floor: no payment to copy (a create phase or --warmup must run first)")
	}
	r := &floorRow{vals: make([]any, len(cols)), fresh: map[int]int{}, cols: cols}
	ptrs := make([]any, len(cols))
	for i := range ptrs {
		ptrs[i] = &r.vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, fmt.Errorf("floor: read a payment: %w", err)
	}
	marks := make([]string, len(cols))
	for i, c := range cols {
		marks[i] = fmt.Sprintf("$%d", i+1)
		if b, ok := r.vals[i].([]byte); ok {
			r.vals[i] = string(b)
		}
		if s, ok := r.vals[i].(string); ok && floorFresh[c] != nil {
			r.fresh[i] = len(s)
		}
	}
	if len(r.fresh) != len(floorFresh) {
		return nil, fmt.Errorf("floor: the payments table lacks one of its unique text columns (found %d of %d)", len(r.fresh), len(floorFresh))
	}
	r.insert = "INSERT INTO payments (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(marks, ", ") + ")"
	return r, rows.Err()
}

// floorResult is what one floor run measured.
type floorResult struct {
	m    measured
	cpu  time.Duration // of the thread that ran the INSERTs, the whole loop
	rows int
}

// runFloor inserts copies of the row, perTx to a transaction, on a's
// writer pool for dur, from one goroutine locked to its thread (SQLite has
// one writer), whose CPU time it measures.
func runFloor(ctx context.Context, a *app.App, dur time.Duration, perTx int) (floorResult, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	thread0, ok := threadCPU()
	if !ok {
		return floorResult{}, errors.New("floor: cannot read this thread's CPU time (/proc/thread-self/stat)")
	}
	write, read := a.Store().Pools()
	row, err := loadFloorRow(ctx, read)
	if err != nil {
		return floorResult{}, err
	}
	stmt, err := write.PrepareContext(ctx, row.insert)
	if err != nil {
		return floorResult{}, fmt.Errorf("floor: prepare: %w", err)
	}
	defer func() { _ = stmt.Close() }()
	perTx = max(perTx, 1)
	vals := append([]any(nil), row.vals...)
	var res floorResult
	cpu0, start := cpuTime(), time.Now()
	for time.Since(start) < dur {
		t := time.Now()
		tx, err := write.BeginTx(ctx, nil)
		if err != nil {
			return res, fmt.Errorf("floor: begin: %w", err)
		}
		for range perTx {
			for i, n := range row.fresh {
				vals[i] = floorFresh[row.cols[i]](n)
			}
			if _, err := tx.StmtContext(ctx, stmt).ExecContext(ctx, vals...); err != nil {
				_ = tx.Rollback()
				return res, fmt.Errorf("floor: insert: %w", err)
			}
		}
		if err := tx.Commit(); err != nil {
			return res, fmt.Errorf("floor: commit: %w", err)
		}
		res.rows += perTx
		res.m.lat = append(res.m.lat, time.Since(t))
	}
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	if thread1, ok := threadCPU(); ok {
		res.cpu = thread1 - thread0
	}
	res.m.rps = float64(res.rows) / elapsed.Seconds()
	res.m.cores = cpu.Seconds() / elapsed.Seconds()
	res.m.perCPU = float64(res.rows) / max(cpu.Seconds(), 1e-3)
	return res, nil
}

// threadCPU is the calling thread's CPU time, from /proc/thread-self/stat
// (clock ticks: 10 ms; the floor runs for seconds).
func threadCPU() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/thread-self/stat")
	if err != nil {
		return 0, false
	}
	return statCPU(string(b))
}

// freshText is n random characters of [0-9a-z].
func freshText(n int) string {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// floorGroup is how many rows the floor puts in a transaction: as many as
// the keyed create phase (else the unkeyed one) committed per transaction
// so far in the run, the median over its rounds; 4 when neither ran.
func floorGroup(byName map[string]*phaseResult) float64 {
	for _, name := range []string{"create-key", "create"} {
		if p := byName[name]; p != nil && len(p.units) > 0 && median(p.units) >= 1 {
			return median(p.units)
		}
	}
	return 4
}

// formatWriter shows a phase's requests per CPU second of the writer ("-"
// for none).
func formatWriter(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", v)
}

// floorGap says how far each create phase is from the floor, per CPU
// second of the writer: "" without a floor phase.
func floorGap(byName map[string]*phaseResult) string {
	f := byName["floor"]
	if f == nil || median(f.writer) == 0 {
		return ""
	}
	var parts []string
	for _, name := range []string{"create", "create-key"} {
		if p := byName[name]; p != nil && median(p.writer) > 0 {
			parts = append(parts, fmt.Sprintf("%s %.0f per writer CPU-s = %.2f of the floor", name, median(p.writer), median(p.writer)/median(f.writer)))
		}
	}
	return fmt.Sprintf("floor (the payment row INSERTed plainly, %.0f to a transaction): %.0f rows per CPU-s of its thread; %s", median(f.units), median(f.writer), strings.Join(parts, "; "))
}
