package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/bankrail/bankrail/internal/notify"
)

// outbox writes notifications inside a unit of work.
type outbox struct {
	s  *Store
	tx *sql.Tx
}

var _ notify.Outbox = outbox{}

// Enqueue writes msgs into the outbox (see Store.enqueue).
func (o outbox) Enqueue(ctx context.Context, at time.Time, msgs ...notify.Message) error {
	_, err := o.s.enqueue(ctx, o.tx, at, msgs...)
	return err
}
