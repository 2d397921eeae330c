package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/bankrail/bankrail/internal/event"
	"github.com/bankrail/bankrail/internal/ids"
)

// events is the event log over a querier (a transaction to write, the read
// pool to query).
type events struct{ q querier }

var _ event.Log = events{}

// Append writes evs; an event without an id gets a uuid v7.
func (e events) Append(ctx context.Context, evs ...event.Event) error {
	for _, ev := range evs {
		if ev.ID == "" {
			id := ids.New()
			ev.ID = id
		}
		if err := insertEvent(ctx, e.q, ev); err != nil {
			return err
		}
	}
	return nil
}

const insertEventSQL = `
	INSERT INTO events (id, customer_id, subject_type, subject_id, seq, type, status, occurred_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`

// insertEvent writes one event.
func insertEvent(ctx context.Context, q querier, ev event.Event) error {
	_, err := q.ExecContext(ctx, insertEventSQL,
		ev.ID, ev.CustomerID, ev.SubjectType, ev.SubjectID, ev.Seq, ev.Type, ev.Status, micros(ev.OccurredAt))
	return translate(err, "event of "+ev.SubjectType+" "+ev.SubjectID)
}

// List returns the events visible to viewer that match f, oldest first
// (by id, which is time ordered), at most f.Limit of them.
func (e events) List(ctx context.Context, viewer string, f event.Filter) ([]event.Event, error) {
	w := visibleWhere("e.customer_id", viewer)
	for _, c := range []struct{ cond, v string }{
		{"e.subject_type = $%d", f.SubjectType}, {"e.subject_id = $%d", f.SubjectID},
		{"e.type = $%d", f.Type}, {"e.status = $%d", f.Status}, {"e.id > $%d", f.AfterID},
	} {
		if c.v != "" {
			w.add(c.cond, c.v)
		}
	}
	if !f.From.IsZero() {
		w.add("e.occurred_at >= $%d", micros(f.From))
	}
	if !f.To.IsZero() {
		w.add("e.occurred_at < $%d", micros(f.To))
	}
	limit := f.Limit
	if limit <= 0 || limit > event.MaxLimit {
		limit = event.DefaultLimit
	}
	rows, err := e.q.QueryContext(ctx, `SELECT e.id, e.customer_id, e.subject_type, e.subject_id, e.seq, e.type, e.status, e.occurred_at
		FROM events e WHERE `+w.sql()+` ORDER BY e.occurred_at, e.id LIMIT `+strconv.Itoa(limit), w.args...)
	if err != nil {
		return nil, translate(err, "list events")
	}
	defer rows.Close()
	out := []event.Event{}
	for rows.Next() {
		var ev event.Event
		var at int64
		if err := rows.Scan(&ev.ID, &ev.CustomerID, &ev.SubjectType, &ev.SubjectID, &ev.Seq, &ev.Type, &ev.Status, &at); err != nil {
			return nil, translate(err, "list events")
		}
		ev.OccurredAt = fromMicros(at)
		out = append(out, ev)
	}
	return out, translate(rows.Err(), "list events")
}

// statusHistoryColumn is a payment's status history read from the event
// log in the payment's own query: "STATUS:micros,..." in order (string_agg
// with ORDER BY exists on both engines), so a read stays one round trip.
const statusHistoryColumn = `(SELECT string_agg(e.status || ':' || CAST(e.occurred_at AS TEXT), ',' ORDER BY e.seq)
		FROM events e WHERE e.subject_type = 'payment' AND e.subject_id = p.id)`

// parseStatusHistory decodes statusHistoryColumn.
func parseStatusHistory(s string, each func(status string, at int64)) error {
	for s != "" {
		item, rest, _ := strings.Cut(s, ",")
		status, at, ok := strings.Cut(item, ":")
		us, err := strconv.ParseInt(at, 10, 64)
		if !ok || err != nil {
			return fmt.Errorf("malformed status history entry %q", item)
		}
		each(status, us)
		s = rest
	}
	return nil
}
