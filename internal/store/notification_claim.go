package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/notify"
)

// dueCondition is what makes a PENDING notification n due and free at the
// claim's arguments: $1 the base time (plus its customer's sandbox clock
// offset), $2 the wall clock of leases, $3 the base time plus the largest
// offset (the index's bound).
const dueCondition = `n.status = 'PENDING' AND n.next_attempt_at <= $3
	AND n.next_attempt_at <= CAST($1 AS BIGINT) + ` + "%s" + `
	AND (n.locked_until IS NULL OR n.locked_until < $2)`

func due() string { return fmt.Sprintf(dueCondition, tenantOffsetSQL("n.customer_id")) }

// dueApplications lists up to limit applications, neither paused nor in
// skip, with a notification due and free, the one with the oldest due
// notification first. It walks the distinct applications of the PENDING
// notifications through the index notifications_pending_application
// (migration 00059) and looks at each one's oldest notifications: its cost
// is one index seek per application with PENDING notifications, however
// long a paused or busy application's backlog is. (The look it replaces
// scanned every due notification in time order and checked the pause and
// skip per row: a paused application's backlog on every wake.)
func (s *Store) dueApplications(ctx context.Context, r notify.ClaimRequest, limit int) ([]string, error) {
	args := []any{micros(r.Due), micros(r.LeaseNow), micros(r.Due) + maxOffsetMicros}
	skip := ""
	if len(r.Skip) > 0 {
		skip = " AND a.id NOT IN (" + inList(&args, r.Skip) + ")"
	}
	query := `
		WITH RECURSIVE apps(id) AS (
			SELECT (SELECT application_id FROM notifications WHERE status = 'PENDING' ORDER BY application_id LIMIT 1)
			UNION ALL
			SELECT (SELECT n.application_id FROM notifications n WHERE n.status = 'PENDING' AND n.application_id > apps.id
				ORDER BY n.application_id LIMIT 1)
			FROM apps WHERE apps.id IS NOT NULL
		)
		SELECT id FROM (
			SELECT a.id, (SELECT n.next_attempt_at FROM notifications n WHERE n.application_id = a.id AND ` + due() + `
				ORDER BY n.next_attempt_at, n.id LIMIT 1) AS first_due
			FROM apps a
			WHERE a.id IS NOT NULL` + skip + `
				AND NOT EXISTS (SELECT 1 FROM notification_endpoints e WHERE e.application_id = a.id AND e.paused_at IS NOT NULL)
		) d
		WHERE first_due IS NOT NULL
		ORDER BY first_due, id
		LIMIT ` + strconv.Itoa(limit) // a literal: SQLite re-prepares a statement with a bound LIMIT at each run
	var rows *sql.Rows
	var err error
	if skip == "" { // the common case: one text, prepared once (its parse cost more than its run on SQLite)
		st, perr := s.prepared(ctx, s.read, query)
		if perr != nil {
			return nil, perr
		}
		rows, err = st.QueryContext(ctx, args...)
	} else {
		rows, err = s.read.QueryContext(ctx, query, args...)
	}
	if err != nil {
		return nil, translate(err, "applications with due notifications")
	}
	defer rows.Close()
	var apps []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, translate(err, "applications with due notifications")
		}
		apps = append(apps, id)
	}
	return apps, translate(rows.Err(), "applications with due notifications")
}

// ClaimNotifications leases up to r.Limit notifications due on their
// customer's clock (r.Due, the base time, plus the tenant's offset) until
// r.LeaseNow+r.Lease and counts the attempt. Only the oldest PENDING
// notification of a payment is claimable (order per payment), never one of a
// paused application, nor one of the applications in r.Skip, nor more of an
// application than r.Left allows; the oldest due
// go first. When nothing is due it writes nothing. Several workers and
// instances may claim at once: on PostgreSQL the rows are locked with SKIP
// LOCKED; on SQLite the single writer serializes claims.
//
// It first reads which applications have due work (dueApplications), then
// takes each one's oldest claimable notifications by the index
// notifications_pending_application, one materialized pick per application
// (as jobs' perKind: a lone "id IN (subquery)" is scanned again by
// PostgreSQL's semi-join and may claim past the limit).
func (s *Store) ClaimNotifications(ctx context.Context, r notify.ClaimRequest) ([]notify.Claim, error) {
	if r.Limit <= 0 {
		return nil, nil
	}
	apps, err := s.dueApplications(ctx, r, r.Limit)
	if err != nil || len(apps) == 0 {
		return nil, err
	}
	leaseID := uuid.NewString()
	args := []any{micros(r.Due), micros(r.LeaseNow), micros(r.Due) + maxOffsetMicros, r.Limit,
		micros(r.LeaseNow.Add(r.Lease)), leaseID}
	ctes := make([]string, 0, len(apps)+1)
	unions := make([]string, 0, len(apps))
	for i, app := range apps {
		limit := r.Limit
		if left, ok := r.Left[app]; ok {
			limit = min(limit, left)
		}
		args = append(args, app, limit)
		ctes = append(ctes, fmt.Sprintf(`pick%d AS MATERIALIZED (SELECT n.id, n.next_attempt_at FROM notifications n
			WHERE n.application_id = $%d AND `+due()+`
				AND NOT EXISTS (SELECT 1 FROM notifications o
					WHERE o.ordering_key = n.ordering_key AND o.seq < n.seq AND o.status = 'PENDING')
				AND NOT EXISTS (SELECT 1 FROM notification_endpoints e
					WHERE e.application_id = n.application_id AND e.paused_at IS NOT NULL)
			ORDER BY n.next_attempt_at, n.id LIMIT $%d`+s.skipLocked()+`)`, i, len(args)-1, len(args)))
		unions = append(unions, fmt.Sprintf("SELECT id, next_attempt_at FROM pick%d", i))
	}
	ctes = append(ctes, `picked AS MATERIALIZED (SELECT id FROM (`+strings.Join(unions, " UNION ALL ")+`) u
		ORDER BY next_attempt_at, id LIMIT $4)`)
	rows, err := s.write.QueryContext(ctx, `WITH `+strings.Join(ctes, ", ")+`
		UPDATE notifications SET locked_until = $5, lease_id = $6, attempts = attempts + 1
		WHERE id IN (SELECT id FROM picked)
		RETURNING `+notificationColumns, args...)
	if err != nil {
		return nil, translate(err, "claim notifications")
	}
	var claims []notify.Claim
	for rows.Next() {
		n, err := scanNotification(rows)
		if err != nil {
			rows.Close()
			return nil, translate(err, "claim notifications")
		}
		claims = append(claims, notify.Claim{Notification: n, LeaseID: leaseID, ClaimedAt: r.Due})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, translate(err, "claim notifications")
	}
	slices.SortFunc(claims, func(a, b notify.Claim) int { return strings.Compare(a.ID, b.ID) })
	return claims, s.attachApplications(ctx, claims)
}
