package payment

// Observer is told about every payment created and every move a payment
// makes, once the unit of work that wrote it has committed (a replayed or
// failed creation, or a move another instance made first, is not told).
// bankrail's metrics implement it; a nil Observer is fine.
type Observer interface {
	// PaymentCreated is a new payment, in status NEW_PAYMENT.
	PaymentCreated(p Payment)
	// PaymentMoved is one move of p from status from to status to; a change
	// of several moves (a sandbox scenario, a timed move followed by the
	// payer's answer) is told move by move, in order.
	PaymentMoved(p Payment, from, to Status)
}

// observeCreated tells the observer about a created payment and the moves
// its creation made (a sandbox scenario).
func (s *Service) observeCreated(c Change) {
	if s.cfg.Observer == nil {
		return
	}
	s.cfg.Observer.PaymentCreated(c.Payment)
	s.observeMoves(c)
}

// observeMoves tells the observer about each move of a committed change.
func (s *Service) observeMoves(c Change) {
	if s.cfg.Observer == nil {
		return
	}
	from := c.From
	for _, u := range c.NewHistory() {
		s.cfg.Observer.PaymentMoved(c.Payment, from, u.Status)
		from = u.Status
	}
}
