package client

import (
	"context"
	"sync"
	"time"

	"github.com/bankrail/bankrail/api"
)

// TokenSource gives the bearer token of each call that needs one.
type TokenSource interface {
	Token(ctx context.Context) (string, error)
}

// invalidator is a TokenSource that can drop a token the server refused
// (401), so that the next Token signs in again.
type invalidator interface {
	Invalidate(token string)
}

// StaticToken is a TokenSource of one access token obtained elsewhere; it
// is never refreshed.
func StaticToken(token string) TokenSource { return staticToken(token) }

type staticToken string

func (s staticToken) Token(context.Context) (string, error) { return string(s), nil }

// Credentials are what the token source signs in with: the application's
// client id and secret and a user of its customer (POST /oauth, password
// grant; bankrail has no client_credentials grant: tokens act for a user).
type Credentials struct {
	ClientID, ClientSecret string
	Username, Password     string
}

// signInTimeout bounds one sign-in, which runs on behalf of every caller
// waiting for it (so on none of their contexts).
const signInTimeout = time.Minute

// tokens is the token source of WithCredentials: it signs in with the
// password grant, keeps the token, and gets a new one with the refresh_token
// grant (falling back to the password grant) shortly before it expires.
// Concurrent callers share one sign-in (single flight).
type tokens struct {
	creds  Credentials
	grant  func(ctx context.Context, req api.TokenRequest, retry bool) (*api.TokenResponse, error)
	now    func() time.Time
	margin func(lifetime time.Duration) time.Duration // how long before expiry to refresh

	mu      sync.Mutex
	access  string
	refresh string
	expiry  time.Time // local clock
	renewAt time.Time
	flight  *flight
}

// flight is one sign-in in progress.
type flight struct {
	done  chan struct{}
	token string
	err   error
}

// refreshMargin refreshes a token when a tenth of its life is left, at most
// five minutes before it expires.
func refreshMargin(lifetime time.Duration) time.Duration { return min(lifetime/10, 5*time.Minute) }

// Token returns a valid token: the cached one, or one from a sign-in that
// this call starts or joins. While a token is close to its expiry it is
// still returned and one refresh runs in the background.
func (s *tokens) Token(ctx context.Context) (string, error) {
	s.mu.Lock()
	now := s.now()
	if s.access != "" && now.Before(s.expiry) {
		tok := s.access
		if !now.Before(s.renewAt) {
			s.startLocked()
		}
		s.mu.Unlock()
		return tok, nil
	}
	f := s.startLocked()
	s.mu.Unlock()
	select {
	case <-f.done:
		return f.token, f.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Invalidate drops token if it is the cached one: the server refused it
// (revoked, or not valid on a sandbox clock that moved). Its refresh token
// is dropped too (it belongs to the same login): the next sign-in uses the
// password.
func (s *tokens) Invalidate(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.access == token {
		s.access, s.refresh, s.expiry, s.renewAt = "", "", time.Time{}, time.Time{}
	}
}

// startLocked starts a sign-in unless one is running, and returns it.
func (s *tokens) startLocked() *flight {
	if s.flight != nil {
		return s.flight
	}
	f := &flight{done: make(chan struct{})}
	s.flight = f
	refresh := s.refresh
	go s.signIn(f, refresh)
	return f
}

// signIn gets a token with the refresh token when there is one, else (or
// when that fails) with the password, and publishes it to f's waiters.
func (s *tokens) signIn(f *flight, refresh string) {
	ctx, cancel := context.WithTimeout(context.Background(), signInTimeout)
	defer cancel()
	started := s.now()
	var resp *api.TokenResponse
	var err error
	if refresh != "" {
		// A refresh token works once: never resend it blindly (a lost answer
		// would revoke the login), fall back to the password instead.
		resp, err = s.grant(ctx, api.TokenRequest{GrantType: "refresh_token", ClientID: s.creds.ClientID,
			ClientSecret: s.creds.ClientSecret, RefreshToken: &refresh}, false)
	}
	if refresh == "" || err != nil {
		resp, err = s.grant(ctx, api.TokenRequest{GrantType: "password", ClientID: s.creds.ClientID,
			ClientSecret: s.creds.ClientSecret, Username: &s.creds.Username, Password: &s.creds.Password}, true)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		lifetime := time.Duration(resp.ExpiresIn) * time.Second
		s.access, s.refresh = resp.AccessToken, resp.RefreshToken
		s.expiry = started.Add(lifetime)
		s.renewAt = s.expiry.Add(-s.margin(lifetime))
		f.token = resp.AccessToken
	} else {
		s.refresh = ""
		f.err = err
	}
	s.flight = nil
	close(f.done)
}
