package httpapi

import (
	"net/http"

	"github.com/bankrail/bankrail/api"
)

// openAPI serves the OpenAPI document that describes this API.
func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) error {
	doc, err := api.JSON()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(doc)
	return nil
}
