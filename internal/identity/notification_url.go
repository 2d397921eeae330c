package identity

import (
	"context"
	"net/url"

	"github.com/bankrail/bankrail/internal/errs"
)

// VetNotificationURL checks a notification URL a person sets (the web
// console): empty (no notifications), or an absolute http(s) URL that
// passes the URL check (netguard in production). Errors are
// VALIDATION_FAILURE naming notificationUrl.
func (s *Service) VetNotificationURL(ctx context.Context, rawURL string) error {
	if rawURL == "" {
		return nil
	}
	if u, err := url.Parse(rawURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(rawURL) > 2000 {
		var v errs.Validation
		v.Add(errs.InvalidValue, "notificationUrl", "notificationUrl must be an absolute http or https URL of at most 2000 characters.")
		return v.Err()
	}
	if s.checkURL == nil {
		return nil
	}
	return s.checkURL(ctx, rawURL, "notificationUrl")
}
