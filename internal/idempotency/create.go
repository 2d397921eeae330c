package idempotency

import "context"

// Response is the answer to a creating request as the client got it, kept
// under its key for replays: the body, the created resource's id, and
// whether it is a replay.
type Response struct {
	Body       []byte
	ResourceID string
	Replayed   bool
}

// UnitOfWork is a unit of work that can complete a ticket (the store's
// transaction).
type UnitOfWork interface {
	Idempotency() Completer
}

// Create runs a creating use case under r's key with g: work runs in one
// unit of work of inTx and gives the created resource's id and the body of
// the answer; the key's ticket (when there is one) is completed in that
// same unit of work, so that the answer is kept if and only if the change
// is. A repeat of a finished request answers the kept body, Replayed.
func Create[U UnitOfWork](ctx context.Context, g *Guard, r Request, inTx func(context.Context, func(U) error) error,
	work func(U) (Result, error)) (Response, error) {
	res, replayed, err := g.Do(ctx, r, func(ctx context.Context, t *Ticket) (Result, error) {
		var out Result
		err := inTx(ctx, func(u U) error {
			var err error
			if out, err = work(u); err != nil || t == nil {
				return err
			}
			return u.Idempotency().Complete(ctx, *t, out)
		})
		return out, err
	})
	if err != nil {
		return Response{}, err
	}
	return Response{Body: res.Body, ResourceID: res.ResourceID, Replayed: replayed}, nil
}
