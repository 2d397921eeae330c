package httpapi

import (
	"errors"
	"io"
	"net/http"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/inbox"
	"github.com/bankrail/bankrail/internal/paging"
	"github.com/bankrail/bankrail/notification"
)

// receiveSandboxNotification serves POST /sandbox/inbox/{clientId}: the
// sandbox's own receiver, reached over HTTP by the dispatcher like any
// merchant's URL. It keeps what arrived and answers 204 when the signature
// holds, 400 otherwise.
func (s *Server) receiveSandboxNotification(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, notification.MaxBodyBytes))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return errs.E(errs.BadRequest, "A notification body is at most %d bytes.", notification.MaxBodyBytes)
		}
		return errs.E(errs.BadRequest, "The request body could not be read.")
	}
	e, err := s.Inbox.Receive(r.Context(), r.PathValue("clientId"), r.Header, body)
	if err != nil {
		return err
	}
	if !e.SignatureValid {
		return errs.E(errs.BadRequest, "The notification was kept, but its signature does not hold: %s.", e.Error)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// listSandboxInbox serves GET /sandbox/inbox.
func (s *Server) listSandboxInbox(w http.ResponseWriter, r *http.Request) error {
	q, err := listQuery(r, inboxFilters)
	if err != nil {
		return err
	}
	page, limit, err := pageParams(q, inbox.DefaultLimit, inbox.MaxLimit)
	if err != nil {
		return err
	}
	p, err := s.Inbox.List(r.Context(), viewer(r), page, limit)
	return writeListOf(w, r, listPaging{Page: p.Page, Limit: p.Limit}, // no cursor: the inbox keeps 1,000
		paging.Page[inbox.Entry]{Items: p.Items, Total: p.TotalItems}, err, inboxEntryOf)
}

// inboxEntryOf renders one inbox entry.
func inboxEntryOf(e inbox.Entry) api.SandboxInboxEntry {
	typ := e.Type
	if typ == "" {
		typ = "gateway"
	}
	return api.SandboxInboxEntry{ID: e.ID, ClientID: e.ClientID, CustomerID: e.CustomerID, NotificationID: opt(e.NotificationID),
		Type: &typ, ReceivedAt: e.ReceivedAt, Headers: e.Headers, Body: string(e.Body), SignatureValid: e.SignatureValid,
		Error: opt(e.Error)}
}
