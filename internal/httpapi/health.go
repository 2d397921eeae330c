package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/bankrail/bankrail/api"
)

// healthz answers while the process runs (liveness).
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, api.Health{Status: api.HealthStatusOk})
	return nil
}

// readyz answers 200 when the database answers, 503 otherwise (readiness).
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.DB.Ping(ctx); err != nil {
		s.log.Warn("readiness check failed", "err", err)
		writeJSON(w, http.StatusServiceUnavailable, api.Readiness{Status: api.ReadinessStatusUnavailable, Database: opt("unreachable")})
		return nil
	}
	writeJSON(w, http.StatusOK, api.Readiness{Status: api.ReadinessStatusReady, Database: opt("ok")})
	return nil
}
