package httpapi

import (
	"net/http"
	"net/url"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/auth"
	"github.com/bankrail/bankrail/internal/errs"
)

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
		r = s.signInAudited(r, audit.ActionSignIn)
		pair, err = s.Auth.Password(r.Context(), auth.PasswordGrant{ClientID: req.ClientID, ClientSecret: req.ClientSecret,
			Username: val(req.Username), Password: val(req.Password), RemoteAddr: s.clientAddr(r), AddrUntrusted: !s.Proxies.Trustworthy(r)})
	case "refresh_token":
		r = s.signInAudited(r, audit.ActionRefresh)
		pair, err = s.Auth.Refresh(r.Context(), auth.RefreshGrant{ClientID: req.ClientID, ClientSecret: req.ClientSecret,
			RefreshToken: val(req.RefreshToken), RemoteAddr: s.clientAddr(r), AddrUntrusted: !s.Proxies.Trustworthy(r)})
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
		if aerr := s.auditRefusal(r, err, val(req.Username), req.ClientID); aerr != nil {
			return aerr
		}
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, api.TokenResponse{AccessToken: pair.AccessToken, TokenType: api.TokenResponseTokenTypeBearer,
		ExpiresIn: api.TokenResponseExpiresIn(pair.ExpiresIn), RefreshToken: pair.RefreshToken})
	return nil
}

// parseTokenRequest reads the body of a token request, JSON or form encoded.
func (s *Server) parseTokenRequest(w http.ResponseWriter, r *http.Request) (api.TokenRequest, error) {
	var req api.TokenRequest
	mt, err := mediaType(r)
	if err != nil {
		return req, err
	}
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
	req = api.TokenRequest{GrantType: api.TokenRequestGrantType(form.Get("grant_type")), ClientID: form.Get("client_id"),
		ClientSecret: form.Get("client_secret"), Username: opt(form.Get("username")), Password: opt(form.Get("password")),
		RefreshToken: opt(form.Get("refresh_token"))}
	return req, nil
}

// jwks publishes the public keys that verify access tokens.
func (s *Server) jwks(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "public, max-age=300")
	var keys api.JWKS
	for _, k := range s.Auth.Keys().JWKS() {
		keys.Keys = append(keys.Keys, api.JWK{Kty: api.JWKKty(k.KTY), Crv: api.JWKCrv(k.CRV), X: k.X, Kid: k.KID,
			Alg: api.JWKAlg(k.ALG), Use: api.JWKUse(k.USE)})
	}
	writeJSON(w, http.StatusOK, keys)
	return nil
}
