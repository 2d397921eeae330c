package store

import (
	"context"
	"database/sql"
	"strconv"
	"time"

	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/mandate"
)

// microsPerDay is one day in the stored unit of time.
const microsPerDay = int64(24 * time.Hour / time.Microsecond)

// PaymentsPerDay counts the payments visible to viewer created in [from,
// to), by day (24-hour periods from from) and status: the web console's
// chart. It calls fn once per day and status that has payments, days in
// order.
func (s *Store) PaymentsPerDay(ctx context.Context, viewer string, from, to time.Time, fn func(day time.Time, status string, count int)) error {
	w := visibleWhere("p.customer_id", viewer)
	w.add("p.created_at >= $%d", micros(from))
	w.add("p.created_at < $%d", micros(to))
	rows, err := s.read.QueryContext(ctx, `
		SELECT (p.created_at - $2) / `+strconv.FormatInt(microsPerDay, 10)+` AS day, p.status, COUNT(*)
		FROM payments p WHERE `+w.sql()+` GROUP BY 1, 2 ORDER BY 1, 2`, w.args...)
	if err != nil {
		return translate(err, "payments per day")
	}
	defer rows.Close()
	for rows.Next() {
		var day int64
		var status string
		var n int
		if err := rows.Scan(&day, &status, &n); err != nil {
			return translate(err, "payments per day")
		}
		fn(from.Add(time.Duration(day)*24*time.Hour), status, n)
	}
	return translate(rows.Err(), "payments per day")
}

// AmendmentsOf lists the amendments of mandate mandateID visible to viewer,
// recalled ones too, newest first: the web console's mandate page (the API
// reads one amendment at a time).
func (s *Store) AmendmentsOf(ctx context.Context, viewer, mandateID string) ([]mandate.Amendment, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+amendmentColumns+` FROM mandate_amendments a
		WHERE a.mandate_id = $2 AND `+visibleTo("a.customer_id", 1)+` ORDER BY a.created_at DESC, a.id DESC`, viewer, mandateID)
	if err != nil {
		return nil, translate(err, "amendments of mandate "+mandateID)
	}
	defer rows.Close()
	out := []mandate.Amendment{}
	for rows.Next() {
		a, err := scanAmendment(rows)
		if err != nil {
			return nil, translate(err, "amendments of mandate "+mandateID)
		}
		out = append(out, a)
	}
	return out, translate(rows.Err(), "amendments of mandate "+mandateID)
}

// SetNotificationURL points application id at url (vetted by the caller),
// audited as a change of the application: the web console's applications
// page.
func (s *Store) SetNotificationURL(ctx context.Context, id, url string) error {
	audit.Resource(ctx, "application", id)
	return s.auditedTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE applications SET notification_url = $2 WHERE id = $1`, id, url)
		return expectOne(res, err, "application "+id)
	})
}

// ApplicationsBelow lists the applications of ancestor and of the
// customers below it (customer_tree), oldest first.
func (s *Store) ApplicationsBelow(ctx context.Context, ancestor string) ([]identity.Application, error) {
	return s.identity().ApplicationsBelow(ctx, ancestor)
}
