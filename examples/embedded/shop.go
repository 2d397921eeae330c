package main

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"log"
	"net/http"
	"sync"

	"github.com/bankrail/bankrail/notification"
)

//go:embed page.html
var pageFS embed.FS

var page = template.Must(template.ParseFS(pageFS, "page.html"))

// config is how the shop reaches bankrail.
type config struct {
	Bankrail           string // bankrail's address (API and checkout library)
	PublicURL          string // this shop's address: the checkout's origin and the notification URL
	ClientID           string
	ClientSecret       string
	Username           string
	Password           string
	NotificationSecret string // verifies the notifications
}

// shop is the merchant's site.
type shop struct {
	cfg    config
	client *http.Client
	mux    *http.ServeMux

	mu       sync.Mutex
	verified []notification.Gateway // gateway notifications whose signature held
}

func newShop(cfg config) *shop {
	s := &shop{cfg: cfg, client: &http.Client{}, mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /{$}", s.checkoutPage)
	s.mux.HandleFunc("POST /notifications", s.receive)
	s.mux.HandleFunc("GET /notifications", s.listVerified)
	return s
}

func (s *shop) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// checkoutPage creates a checkout session for an order of 10.50 EUR and
// renders the page that mounts it.
func (s *shop) checkoutPage(w http.ResponseWriter, r *http.Request) {
	session, err := s.createSession()
	if err != nil {
		log.Printf("create checkout: %v", err)
		http.Error(w, "The checkout is not available: "+err.Error(), http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := page.Execute(w, map[string]string{"Bankrail": s.cfg.Bankrail, "ID": session.ID, "Token": session.Token}); err != nil {
		log.Printf("render: %v", err)
	}
}

// session is the answer of POST /dropin.
type session struct{ ID, Token string }

// createSession signs in and calls POST /dropin (a real shop caches the
// access token for its lifetime).
func (s *shop) createSession() (session, error) {
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := s.call("/oauth", "", map[string]string{"grant_type": "password", "client_id": s.cfg.ClientID,
		"client_secret": s.cfg.ClientSecret, "username": s.cfg.Username, "password": s.cfg.Password}, &tok); err != nil {
		return session{}, err
	}
	var out session
	err := s.call("/dropin", tok.AccessToken, map[string]any{
		"currencyCode": "EUR", "amount": 1050, "type": "GOODS", "uniqueReference": "Order 42",
		"shopper":         map[string]any{"reference": "customer-7", "firstName": "Anna", "lastName": "Müller"},
		"beneficiary":     map[string]any{"name": "Demo Shop GmbH", "iban": "DE89370400440532013000"},
		"summaryDetails":  []map[string]string{{"label": "Order", "value": "42"}},
		"notificationUrl": s.cfg.PublicURL + "/notifications",
		"origin":          s.cfg.PublicURL,
	}, &out)
	return out, err
}

// call POSTs body as JSON to bankrail and decodes the answer into out.
func (s *shop) call(path, token string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, s.cfg.Bankrail+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		var e struct{ Code, Message string }
		_ = json.NewDecoder(resp.Body).Decode(&e)
		return fmt.Errorf("%s: %d %s %s", path, resp.StatusCode, e.Code, e.Message)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// receive is the notification endpoint: nothing is believed unless the
// signature holds.
func (s *shop) receive(w http.ResponseWriter, r *http.Request) {
	n, err := notification.Verifier{Secret: s.cfg.NotificationSecret}.Read(r)
	if err != nil {
		log.Printf("refused a notification: %v", err)
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	if n.Gateway != nil {
		log.Printf("payment %s: %s (%s)", n.Gateway.Payment, n.Gateway.Status, n.Gateway.DetailedStatus)
		s.mu.Lock()
		s.verified = append(s.verified, *n.Gateway)
		s.mu.Unlock()
	}
	w.WriteHeader(http.StatusNoContent)
}

// listVerified shows the verified gateway notifications (for the demo).
func (s *shop) listVerified(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(s.verified)
}
