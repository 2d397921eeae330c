package transfer

import "context"

// Ends is an Owner whose every outcome is one move of its owner to a
// status of S: RejectedTo when the bank refuses the transfer, BookedTo when
// it books the debit, ReturnedTo when the money comes back. End makes the
// move in the import's unit of work r; it leaves an owner that has already
// moved on as it is. The payouts and the refunds are such owners.
type Ends[S any] struct {
	RejectedTo, BookedTo, ReturnedTo S
	End                              func(ctx context.Context, r Repos, t Transfer, to S) error
}

var _ Owner = Ends[string]{}

// Rejected moves t's owner to RejectedTo.
func (e Ends[S]) Rejected(ctx context.Context, r Repos, t Transfer, _ string) error {
	return e.End(ctx, r, t, e.RejectedTo)
}

// Booked moves t's owner to BookedTo (ok) or ReturnedTo.
func (e Ends[S]) Booked(ctx context.Context, r Repos, t Transfer, ok bool, _ string) error {
	if ok {
		return e.End(ctx, r, t, e.BookedTo)
	}
	return e.End(ctx, r, t, e.ReturnedTo)
}
