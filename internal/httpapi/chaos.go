package httpapi

import (
	"net/http"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/notify"
)

// chaosOf renders the chaos settings of the application clientID; the
// previous secret's end is shown while it still signs (on the tenant's
// clock at now).
func chaosOf(clientID string, c notify.Chaos, r notify.Rotation, now time.Time) api.NotificationChaos {
	j := api.NotificationChaos{ClientID: clientID, DuplicatePercent: int64(c.DuplicatePercent), DelayPercent: int64(c.DelayPercent),
		DelaySeconds: c.DelaySeconds, ReorderPercent: int64(c.ReorderPercent),
		CompletedAfterReceivedPercent: int64(c.CompletedAfterReceivedPercent), Seed: c.Seed}
	if r.Active(now) {
		until := r.PreviousUntil
		j.PreviousSecretValidUntil = &until
	}
	return j
}

// tenantNow is the time on the clock of the caller's tenant.
func (s *Server) tenantNow(r *http.Request) (time.Time, error) {
	return clock.For(r.Context(), s.clock, principal(r).CustomerID)
}

// getNotificationChaos serves GET /sandbox/notification-chaos: the chaos
// settings of the caller's application.
func (s *Server) getNotificationChaos(w http.ResponseWriter, r *http.Request) error {
	p := principal(r)
	c, rot, err := s.NotificationSettings.Chaos(r.Context(), p.ClientID)
	return s.writeChaos(w, r, c, rot, err)
}

// writeChaos answers the chaos settings c and rotation rot of the caller's
// application, unless err.
func (s *Server) writeChaos(w http.ResponseWriter, r *http.Request, c notify.Chaos, rot notify.Rotation, err error) error {
	if err != nil {
		return err
	}
	now, err := s.tenantNow(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, chaosOf(principal(r).ClientID, c, rot, now))
	return nil
}

// setNotificationChaos serves PUT /sandbox/notification-chaos: it replaces
// the chaos settings of the caller's application (a field left out is 0).
func (s *Server) setNotificationChaos(w http.ResponseWriter, r *http.Request) error {
	var req api.NotificationChaosSettings
	if err := s.decodeJSON(w, r, &req); err != nil {
		return err
	}
	val := func(v *int64) int64 {
		if v == nil {
			return 0
		}
		return *v
	}
	percent := func(v *int64) int { return int(max(min(val(v), 1000), -1)) } // out of range stays out of range
	c := notify.Chaos{DuplicatePercent: percent(req.DuplicatePercent), DelayPercent: percent(req.DelayPercent),
		DelaySeconds: val(req.DelaySeconds), ReorderPercent: percent(req.ReorderPercent),
		CompletedAfterReceivedPercent: percent(req.CompletedAfterReceivedPercent), Seed: val(req.Seed)}
	c, rot, err := s.NotificationSettings.SetChaos(r.Context(), principal(r).ClientID, c)
	return s.writeChaos(w, r, c, rot, err)
}
