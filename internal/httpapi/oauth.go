package httpapi

import (
	"mime"
	"net/http"
	"net/url"

	"bankrail/internal/auth"
	"bankrail/internal/errs"
)

// tokenRequest is the body of POST /oauth in either encoding.
type tokenRequest struct {
	GrantType    string `json:"grant_type"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	Username     string `json:"username"`
	Password     string `json:"password"`
	RefreshToken string `json:"refresh_token"`
}

// tokenResponse is the contract's token response.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
}

// token serves POST /oauth and POST /legacy/oauth. The Global API documents
// JSON and the legacy API form encoding; both accept either, told apart by
// Content-Type.
func (s *Server) token(w http.ResponseWriter, r *http.Request) error {
	req, err := s.parseTokenRequest(w, r)
	if err != nil {
		return err
	}
	var pair auth.TokenPair
	switch req.GrantType {
	case "password":
		pair, err = s.Auth.Password(r.Context(), auth.PasswordGrant{ClientID: req.ClientID, ClientSecret: req.ClientSecret,
			Username: req.Username, Password: req.Password, RemoteAddr: s.clientAddr(r)})
	case "refresh_token":
		pair, err = s.Auth.Refresh(r.Context(), auth.RefreshGrant{ClientID: req.ClientID, ClientSecret: req.ClientSecret,
			RefreshToken: req.RefreshToken, RemoteAddr: s.clientAddr(r)})
	case "":
		var v errs.Validation
		v.Add(errs.ValueRequired, "grant_type", "grant_type is required: password or refresh_token.")
		err = v.Err()
	default:
		var v errs.Validation
		v.Add(errs.InvalidValue, "grant_type", "grant_type %q is not supported: use password or refresh_token.", req.GrantType)
		err = v.Err()
	}
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, tokenResponse{AccessToken: pair.AccessToken, TokenType: "Bearer",
		ExpiresIn: pair.ExpiresIn, RefreshToken: pair.RefreshToken})
	return nil
}

func (s *Server) parseTokenRequest(w http.ResponseWriter, r *http.Request) (tokenRequest, error) {
	var req tokenRequest
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/x-www-form-urlencoded" {
		return req, s.decodeJSON(w, r, &req)
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return req, err
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return req, errs.E(errs.BadRequest, "Malformed form body: %s.", err.Error())
	}
	req = tokenRequest{GrantType: form.Get("grant_type"), ClientID: form.Get("client_id"), ClientSecret: form.Get("client_secret"),
		Username: form.Get("username"), Password: form.Get("password"), RefreshToken: form.Get("refresh_token")}
	return req, nil
}

// jwks publishes the public keys that verify access tokens.
func (s *Server) jwks(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeJSON(w, http.StatusOK, map[string]any{"keys": s.Auth.Keys().JWKS()})
	return nil
}
