// Package event is the append-only log of what happened to the resources of
// bankrail: a payment's moves today; refunds, payouts and mandates as they
// come. Each event is written in the transaction of the change it records,
// never updated, and can be queried by subject, type, status and time: it is
// what a payment's statusUpdates, the reports and the dashboard read.
package event

import (
	"context"
	"time"
)

// Subject types.
const (
	SubjectPayment = "payment"
)

// Types of events.
const (
	// PaymentStatusChanged: a payment reached Status (its first event is
	// NEW_PAYMENT, at creation).
	PaymentStatusChanged = "payment.status_changed"
)

// Event is one thing that happened to one subject.
type Event struct {
	ID          string    // uuid v7 (time ordered)
	CustomerID  string    // the owner of the subject (visibility)
	SubjectType string    // e.g. SubjectPayment
	SubjectID   string    // the subject's id
	Seq         int       // position among the subject's events, from 1
	Type        string    // e.g. PaymentStatusChanged
	Status      string    // the status reached, for status changes
	OccurredAt  time.Time // on the service clock
}

// Filter selects events visible to a viewer. Zero fields match everything.
type Filter struct {
	SubjectType string
	SubjectID   string
	Type        string
	Status      string
	From        time.Time // inclusive
	To          time.Time // exclusive
	AfterID     string    // keyset cursor: events after this id (ids are time ordered)
	Limit       int       // 1..MaxLimit; 0 means DefaultLimit
}

// Page sizes of queries.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// Log is where events are kept (the store implements it).
type Log interface {
	// Append writes events inside the unit of work of the change they
	// record; an event without an ID gets a uuid v7.
	Append(ctx context.Context, evs ...Event) error
	// List returns the events visible to viewer (its own and those of the
	// customers below it) that match f, oldest first.
	List(ctx context.Context, viewer string, f Filter) ([]Event, error)
}
