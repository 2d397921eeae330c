package store_test

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/report"
	"github.com/bankrail/bankrail/internal/store"
)

const reportCustomer = "00000000-0000-4000-8000-00000000c001"

// allAccounts is a ledger where every account is visible.
type allAccounts struct{}

func (allAccounts) Visible(context.Context, string, string) (bool, error) { return true, nil }

// reportFixture is a store with one customer, its application and n audit
// entries, and a report service over it with tiny chunks.
func reportFixture(t *testing.T, db dbtest.DB, n int, accounts report.Accounts) (*store.Store, *report.Service, *clock.Fake) {
	t.Helper()
	s := open(t, db)
	ctx := adminContext()
	if err := s.CreateCustomer(ctx, identity.Customer{ID: reportCustomer, Name: "Reports", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateApplication(ctx, identity.Application{ID: "00000000-0000-4000-8000-00000000a001", CustomerID: reportCustomer,
		ClientID: "reports-client", ClientSecretHash: "x", NotificationSecret: "s", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		actx, _ := audit.With(ctx, audit.Entry{OccurredAt: t0.Add(time.Duration(i) * time.Millisecond), CustomerID: reportCustomer,
			ActorType: audit.ActorUser, ActorID: "user-1", Action: "POST /payments", ResourceType: "payment",
			ResourceID: fmt.Sprintf("p-%05d", i), RequestID: fmt.Sprintf("r-%d", i), IP: "192.0.2.1"})
		if err := s.InTx(actx, func(*store.Tx) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	clk := clock.NewFake(t0.Add(time.Hour))
	svc := report.NewService(report.Deps{Reports: s.Reports(), InTx: store.Transactor[report.Repos](s), Data: s.ReportData(),
		Hierarchy: s, Accounts: accounts, Banks: bank.Default(), Clock: clk, Log: quiet, ChunkSize: 1024})
	return s, svc, clk
}

// readReport downloads a report through the service and parses it.
func readReport(t *testing.T, svc *report.Service, id string) [][]string {
	t.Helper()
	_, f, err := svc.Open(adminContext(), reportCustomer, id)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func strp(s string) *string { return &s }

// A crash mid-generation (chunks written, no finish) leaves the report
// GENERATING: the next attempt starts over and the file holds each row
// once; the crashed attempt can no longer finish; a report is generated
// once however many workers run it.
func TestReportGenerationSurvivesACrash(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		const n = 3000
		s, svc, _ := reportFixture(t, db, n, nil)
		ctx := adminContext()
		in := report.Input{Type: report.AuditLog, ViewerID: reportCustomer, ClientID: "reports-client",
			StartDate: strp(t0.Format(time.RFC3339)), EndDate: strp(t0.Add(time.Hour).Format(time.RFC3339))}
		r, err := svc.Create(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		// Attempt 1 "crashes" after two chunks.
		started, err := s.Reports().Start(ctx, r.ID, t0)
		if err != nil || started.Attempt != 1 || started.Status != report.Generating {
			t.Fatalf("start: %+v %v", started, err)
		}
		for seq := range 2 {
			if err := s.Reports().WriteChunk(ctx, r.ID, 1, seq, []byte("half-written garbage")); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := svc.Open(ctx, reportCustomer, r.ID); !errs.Is(err, errs.Conflict) {
			t.Fatalf("download while generating: %v, want CONFLICT", err)
		}
		// Attempt 2 (the job again, after the lease ran out) and a concurrent duplicate.
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				if err := svc.Generate(ctx, report.GenerateArgs{ReportID: r.ID}); err != nil && !errs.Is(err, errs.Conflict) {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		got, err := s.Reports().Get(ctx, reportCustomer, r.ID)
		if err != nil || got.Status != report.Available || got.Rows != n || got.Compressed <= 1024 {
			t.Fatalf("after regeneration %+v %v", got, err)
		}
		// The crashed attempt cannot flip it.
		stale := got
		stale.Attempt, stale.Status = 1, report.Failed
		if err := s.Reports().Finish(ctx, stale); !errs.Is(err, errs.Conflict) {
			t.Fatalf("finish of a stale attempt: %v, want CONFLICT", err)
		}
		// Run again: nothing changes.
		if err := svc.Generate(ctx, report.GenerateArgs{ReportID: r.ID}); err != nil {
			t.Fatal(err)
		}
		again, _ := s.Reports().Get(ctx, reportCustomer, r.ID)
		if again.Attempt != got.Attempt || again.Status != report.Available {
			t.Fatalf("a generated report was generated again: %+v", again)
		}
		rows := readReport(t, svc, r.ID)
		if len(rows) != n+1 || !slices.Equal(rows[0], report.Headers[report.AuditLog]) {
			t.Fatalf("%d rows, header %v", len(rows), rows[0])
		}
		for i, row := range rows[1:] {
			if want := fmt.Sprintf("p-%05d", i); row[6] != want || row[0] != t0.Add(time.Duration(i)*time.Millisecond).Format(time.RFC3339Nano) {
				t.Fatalf("row %d = %v, want resource %s", i, row, want)
			}
		}
		// Garbage of attempt 1 is gone.
		if _, err := s.Reports().Chunk(ctx, r.ID, 1, 0); !errs.Is(err, errs.NotFound) {
			t.Fatalf("chunk of the crashed attempt: %v", err)
		}
	})
}

// A job whose report does not exist is cancelled; generation gives up
// after MaxAttempts with REPORT_FAILED.
func TestReportGenerationGivesUp(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s, svc, _ := reportFixture(t, db, 1, nil)
		ctx := adminContext()
		if err := svc.Generate(ctx, report.GenerateArgs{ReportID: "00000000-0000-4000-8000-00000000ffff"}); err == nil {
			t.Fatal("a missing report generated")
		}
		r, err := svc.Create(ctx, report.Input{Type: report.AuditLog, ViewerID: reportCustomer, ClientID: "reports-client",
			StartDate: strp(t0.Format(time.RFC3339)), EndDate: strp(t0.Add(time.Hour).Format(time.RFC3339))})
		if err != nil {
			t.Fatal(err)
		}
		for range report.MaxAttempts { // every attempt crashed
			if _, err := s.Reports().Start(ctx, r.ID, t0); err != nil {
				t.Fatal(err)
			}
		}
		if err := svc.Generate(ctx, report.GenerateArgs{ReportID: r.ID}); err == nil {
			t.Fatal("no error after the last attempt")
		}
		got, _ := s.Reports().Get(ctx, reportCustomer, r.ID)
		if got.Status != report.Failed || got.GeneratedAt.IsZero() || got.Failure == "" {
			t.Fatalf("after %d crashed attempts: %+v", report.MaxAttempts, got)
		}
	})
}

// The CONNECT rules, with a ledger where the account exists: every body
// failure at once; a valid request is a report with the header row alone
// (no Connect transactions yet).
func TestConnectReportRules(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		_, svc, _ := reportFixture(t, db, 1, allAccounts{})
		ctx := adminContext()
		bad := []string{"PAYMENT", "FEE"}
		filter := "bookedAt"
		_, err := svc.Create(ctx, report.Input{Type: report.Connect, ViewerID: reportCustomer, BankAccountID: "00000000-0000-4000-8000-00000000acc1",
			StartDate: strp(t0.Format(time.RFC3339)), EndDate: strp(t0.Add(-time.Hour).Format(time.RFC3339)),
			TransactionTypes: &bad, DateFilterType: &filter})
		var e *errs.Error
		if !errs.Is(err, errs.ValidationFailure) || !errors.As(err, &e) {
			t.Fatalf("got %v", err)
		}
		var got []string
		for _, f := range e.Fields {
			got = append(got, f.Type+" "+f.PropertyPath)
		}
		want := []string{"INVALID_DATE endDate", "INVALID_VALUE transactionTypes[1]", "INVALID_VALUE dateFilterType"}
		if !slices.Equal(got, want) {
			t.Fatalf("errors %v, want %v", got, want)
		}
		allow := true
		r, err := svc.Create(ctx, report.Input{Type: report.Connect, ViewerID: reportCustomer, ClientID: "reports-client",
			BankAccountID: "00000000-0000-4000-8000-00000000acc1", AllowEmpty: &allow,
			StartDate: strp(t0.Format(time.RFC3339)), EndDate: strp(t0.Add(time.Hour).Format(time.RFC3339))})
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.Generate(ctx, report.GenerateArgs{ReportID: r.ID}); err != nil {
			t.Fatal(err)
		}
		if rows := readReport(t, svc, r.ID); len(rows) != 1 || !slices.Equal(rows[0], report.Headers[report.Connect]) {
			t.Fatalf("rows %v", rows)
		}
		allow = false
		_, err = svc.Create(ctx, report.Input{Type: report.Connect, ViewerID: reportCustomer, BankAccountID: "00000000-0000-4000-8000-00000000acc1",
			StartDate: strp(t0.Format(time.RFC3339)), EndDate: strp(t0.Add(time.Hour).Format(time.RFC3339))})
		if !errs.Is(err, errs.ReportEmpty) {
			t.Fatalf("no transactions, allowEmpty false: %v", err)
		}
	})
}
