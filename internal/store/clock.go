package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/clock"
)

// tenantClocks is the repository of the sandbox's per-tenant clocks: one
// offset per top-level customer (table tenant_clocks; no row is offset 0).
type tenantClocks struct {
	s *Store
	q querier // reads: the read pool, or a unit of work's transaction
}

var _ clock.TenantStore = tenantClocks{}

// TenantClocks is the repository of the sandbox's per-tenant clocks.
func (s *Store) TenantClocks() clock.TenantStore { return tenantClocks{s: s, q: s.read} }

// TenantClocks is the repository of the sandbox's per-tenant clocks that
// reads inside the transaction: it sees the customers the unit of work has
// created (a seed file's, applied in one transaction).
func (t *Tx) TenantClocks() clock.TenantStore { return tenantClocks{s: t.s, q: t.tx} }

// tenantOffsetSQL is the offset, in microseconds, of the clock of the
// customer in column col: the tenant_clocks row of one of its ancestors
// (only top-level customers have rows), else 0. The time rules that the
// database selects (due payments, notifications, jobs) compare with the base
// time plus it.
func tenantOffsetSQL(col string) string {
	return `COALESCE((SELECT MAX(tc.offset_us) FROM customer_tree ct JOIN tenant_clocks tc ON tc.tenant_id = ct.ancestor_id
		WHERE ct.descendant_id = ` + col + `), 0)`
}

// maxOffsetMicros is clock.MaxOffset in microseconds: every tenant's time
// is at most this far ahead of the base time, which bounds the due scans.
var maxOffsetMicros = clock.MaxOffset.Microseconds()

// TenantClock returns the top-level customer of customerID (its ancestor
// of greatest depth) and that customer's offset.
func (r tenantClocks) TenantClock(ctx context.Context, customerID string) (string, time.Duration, error) {
	var top string
	var us int64
	err := r.q.QueryRowContext(ctx, `
		SELECT ct.ancestor_id, COALESCE(tc.offset_us, 0)
		FROM customer_tree ct LEFT JOIN tenant_clocks tc ON tc.tenant_id = ct.ancestor_id
		WHERE ct.descendant_id = $1 ORDER BY ct.depth DESC LIMIT 1`, customerID).Scan(&top, &us)
	return top, time.Duration(us) * time.Microsecond, translate(err, "customer "+customerID)
}

// AdvanceTenantClock adds d to tenantID's offset in one statement, unless
// the result would exceed max: then no row matches and it is
// clock.ErrOffsetBound.
func (r tenantClocks) AdvanceTenantClock(ctx context.Context, tenantID string, d, max time.Duration) (time.Duration, error) {
	if d > max {
		return 0, clock.ErrOffsetBound
	}
	var us int64
	audit.Resource(ctx, "sandbox_clock", tenantID)
	err := r.s.auditedTx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `
			INSERT INTO tenant_clocks (tenant_id, offset_us) VALUES ($1, $2)
			ON CONFLICT (tenant_id) DO UPDATE SET offset_us = tenant_clocks.offset_us + excluded.offset_us
			WHERE tenant_clocks.offset_us + excluded.offset_us <= $3
			RETURNING offset_us`, tenantID, d.Microseconds(), max.Microseconds()).Scan(&us)
		if errors.Is(err, sql.ErrNoRows) {
			return clock.ErrOffsetBound
		}
		return translate(err, "sandbox clock of "+tenantID)
	})
	return time.Duration(us) * time.Microsecond, err
}

// ResetTenantClock deletes tenantID's offset: its clock is the base clock.
func (r tenantClocks) ResetTenantClock(ctx context.Context, tenantID string) error {
	audit.Resource(ctx, "sandbox_clock", tenantID)
	return r.s.auditedTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM tenant_clocks WHERE tenant_id = $1`, tenantID)
		return translate(err, "sandbox clock of "+tenantID)
	})
}
