package store

import (
	"context"
	"database/sql"
	"time"

	"bankrail/internal/notify"
)

// EnqueueThen enqueues msgs inside a transaction that then returns fail:
// committed when fail is nil, rolled back otherwise. It stands for a
// feature's state change that writes its notification in its own
// transaction.
func (s *Store) EnqueueThen(ctx context.Context, now time.Time, fail error, msgs ...notify.Message) ([]string, error) {
	var ids []string
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if ids, err = s.enqueue(ctx, tx, now, msgs...); err != nil {
			return err
		}
		return fail
	})
	return ids, err
}
