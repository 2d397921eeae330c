package identity

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/errs"
)

// ApplicationsBelow lists the applications of viewer's customer and of the
// customers below it (a PSP's merchants'), oldest first.
func (s *Service) ApplicationsBelow(ctx context.Context, viewer string) ([]Application, error) {
	if _, err := Authorize(ctx, AppRead); err != nil {
		return nil, err
	}
	return s.store.ApplicationsBelow(ctx, viewer)
}

// Application reads application id if viewer's customer is its customer
// or above it; anything else is RESOURCE_NOT_FOUND, as a missing id.
func (s *Service) Application(ctx context.Context, viewer, id string) (Application, error) {
	if _, err := Authorize(ctx, AppRead); err != nil {
		return Application{}, err
	}
	return s.visibleApplication(ctx, viewer, id)
}

// SetNotificationURL points application id, visible to viewer, at rawURL
// (empty: nowhere) once the URL passes the check of every notification URL
// (VetNotificationURL); the change is audited. It answers the application
// as it now is.
func (s *Service) SetNotificationURL(ctx context.Context, viewer, id, rawURL string) (Application, error) {
	if _, err := Authorize(ctx, AppChange); err != nil {
		return Application{}, err
	}
	a, err := s.visibleApplication(ctx, viewer, id)
	if err != nil {
		return Application{}, err
	}
	if err := s.VetNotificationURL(ctx, rawURL); err != nil {
		return Application{}, err
	}
	if err := s.store.SetNotificationURL(ctx, a.ID, rawURL); err != nil {
		return Application{}, err
	}
	a.NotificationURL = rawURL
	return a, nil
}

// visibleApplication is Application without the permission check.
func (s *Service) visibleApplication(ctx context.Context, viewer, id string) (Application, error) {
	notFound := errs.NotFoundf("Application %s was not found.", id)
	if uuid.Validate(id) != nil {
		return Application{}, notFound
	}
	a, err := s.store.GetApplication(ctx, strings.ToLower(id))
	if errs.Is(err, errs.NotFound) {
		return Application{}, notFound
	}
	if err != nil {
		return Application{}, err
	}
	ok, err := s.store.IsDescendant(ctx, viewer, a.CustomerID)
	if err != nil {
		return Application{}, err
	}
	if !ok {
		return Application{}, notFound
	}
	return a, nil
}
