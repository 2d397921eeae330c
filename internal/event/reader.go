package event

import (
	"context"

	"github.com/bankrail/bankrail/internal/identity"
)

// Reader reads the event log for a caller (the console's histories of a
// payment and of a mandate): it checks the caller's permission, then asks
// the log, which shows only what the viewer's customer tree owns.
type Reader struct{ log Log }

// NewReader returns a Reader over log.
func NewReader(log Log) *Reader { return &Reader{log: log} }

// List returns the events visible to viewer that match f, oldest first.
func (r *Reader) List(ctx context.Context, viewer string, f Filter) ([]Event, error) {
	if _, err := identity.Authorize(ctx, identity.HistoryRead); err != nil {
		return nil, err
	}
	return r.log.List(ctx, viewer, f)
}
