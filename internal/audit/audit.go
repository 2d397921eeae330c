// Package audit is bankrail's audit log: who (a user, or an application for
// failed sign-ins) did what (an action), to which record, when, from which
// request and address. It knows nothing of HTTP or SQL. An entry is put,
// pending, into the context of a request that may change something (one
// place: the HTTP adapter's route guard, and the token endpoint for
// sign-ins); the store writes it in the commit path of the unit of work
// that makes the change, so the entry exists if and only if the change does.
// An entry never holds a secret: its fields are ids, names of actions and
// addresses, never request bodies or headers.
package audit

import (
	"context"
	"strings"
	"sync"
	"time"
)

// Actor types.
const (
	ActorUser        = "USER"       // a signed-in user (the token's subject)
	ActorApplication = "API_CLIENT" // an application whose user is unknown (a failed sign-in)
)

// Actions that are not an API route (a route's action is its pattern,
// such as "POST /payments").
const (
	ActionSignIn       = "oauth.sign_in"        // password grant succeeded
	ActionRefresh      = "oauth.refresh"        // refresh_token grant succeeded
	ActionSignInFailed = "oauth.sign_in_failed" // a grant was refused
)

// Entry is one row of the audit log.
type Entry struct {
	ID           string // uuid v7, given by the store
	OccurredAt   time.Time
	CustomerID   string // whose log it is in (the actor's customer)
	ActorType    string
	ActorID      string
	Action       string
	ResourceType string
	ResourceID   string
	RequestID    string
	IP           string
}

// Pending is the entry of one request, written at most once by the first
// unit of work of the request that commits.
type Pending struct {
	mu      sync.Mutex
	entry   Entry
	written bool
}

type pendingKey struct{}

// With returns ctx carrying e as the pending entry of its request.
func With(ctx context.Context, e Entry) (context.Context, *Pending) {
	p := &Pending{entry: e}
	return context.WithValue(ctx, pendingKey{}, p), p
}

// From returns the pending entry of ctx's request, if any.
func From(ctx context.Context) *Pending {
	p, _ := ctx.Value(pendingKey{}).(*Pending)
	return p
}

// Entry returns the entry and whether it still waits to be written.
func (p *Pending) Entry() (Entry, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.entry, !p.written
}

// Written marks the entry as written (its transaction committed).
func (p *Pending) Written() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.written = true
}

// Resource names the record a request created: the repository that
// creates a record calls it (one line per kind of record, in the store,
// not in handlers). It replaces the record named by the path (a refund
// created at /payments/{id}/request-refund is the refund).
func Resource(ctx context.Context, typ, id string) {
	if p := From(ctx); p != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.entry.ResourceType, p.entry.ResourceID = typ, id
	}
}

// Actor names who acted when the request did not know it yet (a sign-in:
// the user is known once the credentials are checked).
func Actor(ctx context.Context, typ, id string) {
	if p := From(ctx); p != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.entry.ActorID == "" {
			p.entry.ActorType, p.entry.ActorID = typ, id
		}
	}
}

// ResourceOfPath derives the record a route acts on from its pattern and
// the value of its {id} (or other) path parameter: "POST
// /payments/{id}/request-refund" with id X gives ("payment", X).
func ResourceOfPath(pattern string, value func(name string) string) (typ, id string) {
	_, path, _ := strings.Cut(pattern, " ")
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") && i > 0 {
			return strings.TrimSuffix(segs[i-1], "s"), value(strings.Trim(s, "{}"))
		}
	}
	return "", ""
}
