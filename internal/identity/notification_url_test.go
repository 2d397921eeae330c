package identity_test

import (
	"context"
	"testing"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
)

// TestVetNotificationURL: empty or an absolute http(s) URL passes, then
// the URL check decides; anything else is VALIDATION_FAILURE on
// notificationUrl.
func TestVetNotificationURL(t *testing.T) {
	t.Parallel()
	s := identity.NewService(nil, nil, nil)
	checked := identity.NewService(nil, nil, nil)
	checked.CheckNotificationURLs(func(_ context.Context, raw, field string) error {
		if raw == "http://10.0.0.1/in" {
			var v errs.Validation
			v.Add(errs.InvalidValue, field, "must not point inside the network")
			return v.Err()
		}
		return nil
	})
	tests := []struct {
		url string
		ok  bool
	}{
		{"", true},
		{"https://hooks.example.com/in", true},
		{"http://hooks.example.com:8080/in?x=1", true},
		{"ftp://hooks.example.com/in", false},
		{"hooks.example.com/in", false},
		{"/relative", false},
		{"https://", false},
		{"https://hooks.example.com/" + string(make([]byte, 2000)), false},
	}
	for _, tt := range tests {
		err := s.VetNotificationURL(context.Background(), tt.url)
		if (err == nil) != tt.ok {
			t.Errorf("%.40q: %v", tt.url, err)
		}
		if err != nil && !errs.Is(err, errs.ValidationFailure) {
			t.Errorf("%.40q: %v, want VALIDATION_FAILURE", tt.url, err)
		}
	}
	if err := checked.VetNotificationURL(context.Background(), "http://10.0.0.1/in"); !errs.Is(err, errs.ValidationFailure) {
		t.Errorf("the URL check was not applied: %v", err)
	}
	if err := checked.VetNotificationURL(context.Background(), "https://hooks.example.com/in"); err != nil {
		t.Errorf("a good URL with the check: %v", err)
	}
}
