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

// OwnApplications lists the applications of viewer's customer itself,
// oldest first (the console's chaos forms).
func (s *Service) OwnApplications(ctx context.Context, viewer string) ([]Application, error) {
	if _, err := Authorize(ctx, AppRead); err != nil {
		return nil, err
	}
	return s.ownApplications(ctx, viewer)
}

// NearestApplication is the first application of viewer's customer, else
// the first of the nearest customer above it that has one; false when no
// customer up the tree has one (who is told when a report requested in the
// console is ready).
func (s *Service) NearestApplication(ctx context.Context, viewer string) (Application, bool, error) {
	if _, err := Authorize(ctx, AppRead); err != nil {
		return Application{}, false, err
	}
	for id, hops := viewer, 0; id != "" && hops < 16; hops++ {
		apps, err := s.ownApplications(ctx, id)
		if err != nil {
			return Application{}, false, err
		}
		if len(apps) > 0 {
			return apps[0], true, nil
		}
		c, err := s.store.GetCustomer(ctx, id)
		if err != nil {
			return Application{}, false, err
		}
		id = c.ParentID
	}
	return Application{}, false, nil
}

// ownApplications are the applications of customer id itself.
func (s *Service) ownApplications(ctx context.Context, id string) ([]Application, error) {
	below, err := s.store.ApplicationsBelow(ctx, id)
	if err != nil {
		return nil, err
	}
	var out []Application
	for _, a := range below {
		if a.CustomerID == id {
			out = append(out, a)
		}
	}
	return out, nil
}
