package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/bankrail/bankrail/internal/report"
)

// reportData reads the rows of reports, streaming, on the read pool or
// the replica (reportPool).
type reportData struct {
	s     *Store
	batch int // rows per keyset query (reportBatch; smaller in tests)
}

var _ report.Data = reportData{}

// ReportData is what reports read.
func (s *Store) ReportData() report.Data { return reportData{s: s, batch: reportBatch} }

// scopeWhere is the condition of a report's scope on a table with
// customer_id and the time column col; its arguments start at $1.
func scopeWhere(sc report.Scope, col string) (string, []any) {
	cust := visibleTo("customer_id", 1)
	if sc.Exact {
		cust = "customer_id = $1"
	}
	return fmt.Sprintf("%s AND %s >= $2 AND %s <= $3", cust, col, col),
		[]any{sc.Root, micros(sc.From), micros(sc.To)}
}

// dateColumn is the column a payment's period is read on.
func dateColumn(sc report.Scope) string {
	if sc.ByUpdated {
		return "updated_at"
	}
	return "created_at"
}

// AnyPayment reports whether the scope holds a payment.
func (d reportData) AnyPayment(ctx context.Context, sc report.Scope) (bool, error) {
	return d.exists(ctx, "payments", sc, dateColumn(sc))
}

// withAccount narrows a scope's condition (arguments args) to the
// account in column col when the scope names one.
func withAccount(where string, args []any, sc report.Scope, col string) (string, []any) {
	if sc.AccountID == "" {
		return where, args
	}
	args = append(args, sc.AccountID)
	return fmt.Sprintf("%s AND %s = $%d", where, col, len(args)), args
}

// Refunds streams the refunds of the scope, oldest first.
func (d reportData) Refunds(ctx context.Context, sc report.Scope, fn func(report.RefundRow) error) error {
	where, args := scopeWhere(sc, dateColumn(sc))
	where, args = withAccount(where, args, sc, "account_id")
	rows, err := d.s.reportPool(ctx).QueryContext(ctx, `
		SELECT id, payment_id, account_id, created_at, updated_at, status, amount, currency, external_reference
		FROM refunds WHERE `+where+` ORDER BY created_at, id`, args...)
	if err != nil {
		return translate(err, "refunds of a report")
	}
	defer rows.Close()
	var f report.RefundRow
	var created, updated int64
	for rows.Next() {
		if err := rows.Scan(&f.ID, &f.PaymentID, &f.AccountID, &created, &updated, &f.Status, &f.Amount, &f.Currency,
			&f.ExternalReference); err != nil {
			return translate(err, "refunds of a report")
		}
		f.CreatedAt, f.UpdatedAt = fromMicros(created), fromMicros(updated)
		if err := fn(f); err != nil {
			return err
		}
	}
	return translate(rows.Err(), "refunds of a report")
}

// Payouts streams the payouts of the scope, oldest first (the payouts
// table of internal/payout, read only).
func (d reportData) Payouts(ctx context.Context, sc report.Scope, fn func(report.PayoutRow) error) error {
	where, args := scopeWhere(sc, dateColumn(sc))
	where, args = withAccount(where, args, sc, "account_id")
	rows, err := d.s.reportPool(ctx).QueryContext(ctx, `
		SELECT id, account_id, created_at, updated_at, status, amount, currency, payment_reference, beneficiary_name, beneficiary_iban
		FROM payouts WHERE `+where+` ORDER BY created_at, id`, args...)
	if err != nil {
		return translate(err, "payouts of a report")
	}
	defer rows.Close()
	var p report.PayoutRow
	var created, updated int64
	for rows.Next() {
		if err := rows.Scan(&p.ID, &p.AccountID, &created, &updated, &p.Status, &p.Amount, &p.Currency, &p.PaymentReference,
			&p.BeneficiaryName, &p.BeneficiaryIBAN); err != nil {
			return translate(err, "payouts of a report")
		}
		p.CreatedAt, p.UpdatedAt = fromMicros(created), fromMicros(updated)
		if err := fn(p); err != nil {
			return err
		}
	}
	return translate(rows.Err(), "payouts of a report")
}

// connectWhere is the condition of a CONNECT report: the scope, the
// account and the ledger types its transactionTypes select.
func connectWhere(sc report.Scope) (string, []any) {
	where, args := scopeWhere(sc, dateColumn(sc))
	where, args = withAccount(where, args, sc, "account_id")
	types := report.LedgerTypes(sc.TxnTypes)
	if len(types) == 0 {
		return where + " AND 1 = 0", args
	}
	marks := make([]string, len(types))
	for i, typ := range types {
		args = append(args, typ)
		marks[i] = fmt.Sprintf("$%d", len(args))
	}
	return where + " AND type IN (" + strings.Join(marks, ", ") + ")", args
}

// ConnectTransactions streams the scope's transactions of its Connect
// account, oldest first.
func (d reportData) ConnectTransactions(ctx context.Context, sc report.Scope, fn func(report.ConnectRow) error) error {
	where, args := connectWhere(sc)
	rows, err := d.s.reportPool(ctx).QueryContext(ctx, `SELECT `+transactionColumns+` FROM ledger_transactions t WHERE `+where+
		` ORDER BY t.created_at, t.id`, args...)
	if err != nil {
		return translate(err, "transactions of a report")
	}
	defer rows.Close()
	for rows.Next() {
		t, err := scanTransaction(rows)
		if err != nil {
			return translate(err, "transactions of a report")
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	return translate(rows.Err(), "transactions of a report")
}

// AnyConnectTransaction reports whether the scope holds a transaction of
// its Connect account.
func (d reportData) AnyConnectTransaction(ctx context.Context, sc report.Scope) (bool, error) {
	where, args := connectWhere(sc)
	return d.existsWhere(ctx, "ledger_transactions", where, args)
}

// AuditLog streams the audit entries of the scope, oldest first.
func (d reportData) AuditLog(ctx context.Context, sc report.Scope, fn func(report.AuditRow) error) error {
	where, args := scopeWhere(sc, "occurred_at")
	rows, err := d.s.reportPool(ctx).QueryContext(ctx, `
		SELECT occurred_at, customer_id, actor_type, actor_id, action, resource_type, resource_id, request_id, ip
		FROM audit_log WHERE `+where+` ORDER BY occurred_at, id`, args...)
	if err != nil {
		return translate(err, "audit log of a report")
	}
	defer rows.Close()
	var a report.AuditRow
	var at int64
	for rows.Next() {
		if err := rows.Scan(&at, &a.CustomerID, &a.ActorType, &a.ActorID, &a.Action, &a.ResourceType, &a.ResourceID,
			&a.RequestID, &a.IP); err != nil {
			return translate(err, "audit log of a report")
		}
		a.OccurredAt = fromMicros(at)
		if err := fn(a); err != nil {
			return err
		}
	}
	return translate(rows.Err(), "audit log of a report")
}

// AnyAudit reports whether the scope holds an audit entry.
func (d reportData) AnyAudit(ctx context.Context, sc report.Scope) (bool, error) {
	return d.exists(ctx, "audit_log", sc, "occurred_at")
}

// exists reports whether table has a row in the scope.
func (d reportData) exists(ctx context.Context, table string, sc report.Scope, col string) (bool, error) {
	where, args := scopeWhere(sc, col)
	return d.existsWhere(ctx, table, where, args)
}

// existsWhere reports whether table has a row matching where.
func (d reportData) existsWhere(ctx context.Context, table, where string, args []any) (bool, error) {
	var n int
	err := d.s.reportPool(ctx).QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM `+table+` WHERE `+where+` LIMIT 1) AS found`, args...).Scan(&n)
	if err != nil {
		return false, translate(err, table+" of a report")
	}
	return n > 0, nil
}
