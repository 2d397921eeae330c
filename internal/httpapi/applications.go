package httpapi

import (
	"net/http"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/errs"
)

// rotateNotificationSecret serves POST /notification-secret/rotate
// {"overlapSeconds": N}: the caller's application gets a new notification
// secret, answered once; the previous one keeps signing for N seconds.
func (s *Server) rotateNotificationSecret(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		OverlapSeconds *int64 `json:"overlapSeconds"`
	}
	if err := s.decodeJSON(w, r, &req); err != nil {
		return err
	}
	if req.OverlapSeconds == nil {
		var v errs.Validation
		v.Add(errs.ValueRequired, "overlapSeconds", "overlapSeconds is required: how long the previous secret keeps signing (0 for not at all).")
		return v.Err()
	}
	p := principal(r)
	overlap := time.Duration(max(min(*req.OverlapSeconds, 1<<32), -1)) * time.Second
	rot, err := s.NotificationSettings.RotateSecret(r.Context(), p.CustomerID, p.ClientID, overlap)
	if err != nil {
		return err
	}
	j := api.NotificationSecret{ClientID: p.ClientID, NotificationSecret: rot.Secret}
	if rot.PreviousSecret != "" {
		until := rot.PreviousUntil
		j.PreviousSecretValidUntil = &until
	}
	writeJSON(w, http.StatusOK, j)
	return nil
}
