package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/bankrail/bankrail/api"
)

// openAPI serves the OpenAPI document that describes this API, with this
// instance's public URL as its one server.
func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) error {
	doc, err := s.servedDocument()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(doc)
	return nil
}

// servedDocs caches the served document by public URL (one per server in
// practice; tests run several).
var servedDocs sync.Map // public URL -> []byte

// servedDocument is api.JSON with servers set to the public URL (when the
// server knows it): a client generated from the served document then talks
// to this instance, not to the document's local default.
func (s *Server) servedDocument() ([]byte, error) {
	if doc, ok := servedDocs.Load(s.PublicURL); ok {
		return doc.([]byte), nil
	}
	doc, err := withServer(s.PublicURL)
	if err != nil {
		return nil, err
	}
	servedDocs.Store(s.PublicURL, doc)
	return doc, nil
}

// withServer is the document with publicURL as its one server.
func withServer(publicURL string) ([]byte, error) {
	doc, err := api.JSON()
	if err != nil || publicURL == "" {
		return doc, err
	}
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		return nil, fmt.Errorf("read the OpenAPI document: %w", err)
	}
	m["servers"] = []map[string]string{{"url": publicURL, "description": "this instance"}}
	out, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("write the OpenAPI document: %w", err)
	}
	return out, nil
}

// servePages hands a request to the payer's pages handler (for the routes
// of it that the API routes itself, such as the embedded checkout's library).
func (s *Server) servePages(w http.ResponseWriter, r *http.Request) error {
	s.Pages.ServeHTTP(w, r)
	return nil
}
