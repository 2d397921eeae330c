package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
)

// Config tunes the auth service.
type Config struct {
	Issuer               string
	AccessTTL            time.Duration
	RefreshTTL           time.Duration
	MaxFailures          int           // per application and username within FailureWindow
	MaxFailuresPerUser   int           // per username through the applications that may sign it in
	MaxFailuresPerClient int           // per client address within FailureWindow
	FailureWindow        time.Duration // also how long a lock lasts
}

// Service runs the OAuth grants and verifies access tokens.
type Service struct {
	store Store
	keys  *KeyRing
	clock clock.Clock
	log   *slog.Logger
	cfg   Config
	// hasher verifies client secrets and passwords; for unknown clients and
	// users it verifies a stand-in hash, so that timing does not reveal
	// which exist.
	hasher      *identity.Hasher
	seen        tokenCache
	generations generationCache
}

// NewService returns an auth service. keys must be loaded.
func NewService(store Store, keys *KeyRing, hasher *identity.Hasher, clk clock.Clock, log *slog.Logger, cfg Config) *Service {
	return &Service{store: store, keys: keys, hasher: hasher, clock: clk, log: log, cfg: cfg}
}

// Keys returns the key ring (for the JWKS endpoint and rotation).
func (s *Service) Keys() *KeyRing { return s.keys }

// PasswordGrant is the OAuth password grant.
type PasswordGrant struct {
	ClientID, ClientSecret, Username, Password string
	RemoteAddr                                 string
	AddrUntrusted                              bool // RemoteAddr may be shared by many (see ConsoleSignIn)
}

// RefreshGrant is the OAuth refresh_token grant.
type RefreshGrant struct {
	ClientID, ClientSecret, RefreshToken string
	RemoteAddr                           string
	AddrUntrusted                        bool // RemoteAddr may be shared by many (see ConsoleSignIn)
}

// Claims are the claims of a bankrail access token.
type Claims struct {
	jwt.RegisteredClaims
	ClientID   string `json:"client_id"`
	CustomerID string `json:"customer_id"`
	Role       string `json:"role"`
	Username   string `json:"preferred_username"`
	Generation int64  `json:"gen,omitempty"` // the user's token generation at issue
}

var errInvalidLogin = errs.E(errs.Unauthorised, "Invalid client credentials or username and password.")

// Refresh runs the refresh_token grant. Each refresh token works once; a
// second use revokes every refresh token of its family.
func (s *Service) Refresh(ctx context.Context, g RefreshGrant) (TokenPair, error) {
	var v errs.Validation
	required(&v, "client_id", g.ClientID)
	required(&v, "client_secret", g.ClientSecret)
	required(&v, "refresh_token", g.RefreshToken)
	if err := v.Err(); err != nil {
		return TokenPair{}, err
	}
	addrKey := s.addressKeys(g.RemoteAddr, g.AddrUntrusted)
	if err := s.checkLock(ctx, addrKey...); err != nil {
		return TokenPair{}, err
	}
	app, err := s.verifyClient(ctx, g.ClientID, g.ClientSecret)
	if err != nil {
		return TokenPair{}, s.failed(ctx, err, addrKey...)
	}
	invalid := errs.E(errs.Unauthorised, "The refresh token is invalid, expired or already used; sign in again with the password grant.")
	tok, err := s.store.GetRefreshToken(ctx, hashToken(g.RefreshToken))
	switch {
	case errs.Is(err, errs.NotFound):
		return TokenPair{}, s.failed(ctx, invalid, addrKey...)
	case err != nil:
		return TokenPair{}, fmt.Errorf("load refresh token: %w", err)
	}
	now := clock.Base(s.clock) // basetime: a family's revocation stamp, bookkeeping that takes effect at once
	if tok.ApplicationID != app.ID {
		return TokenPair{}, invalid
	}
	if !tok.UsedAt.IsZero() {
		s.log.Warn("refresh token reused; revoking its family", "family", tok.FamilyID, "user", tok.UserID)
		if err := s.store.RevokeRefreshFamily(ctx, tok.FamilyID, now); err != nil {
			return TokenPair{}, fmt.Errorf("revoke refresh family: %w", err)
		}
		return TokenPair{}, invalid
	}
	user, err := s.store.GetUser(ctx, tok.UserID)
	if err != nil {
		return TokenPair{}, fmt.Errorf("load user: %w", err)
	}
	// Expiry is on the clock of the user's tenant; a token made while that
	// clock was further ahead (before a reset) is not valid yet.
	tenantNow, err := clock.For(ctx, s.clock, user.CustomerID)
	if err != nil {
		return TokenPair{}, err
	}
	if tenantNow.Before(tok.CreatedAt.Add(-time.Minute)) { // made by an instance that saw an advance first?
		if tenantNow, err = clock.Fresh(ctx, s.clock, user.CustomerID); err != nil {
			return TokenPair{}, err
		}
	}
	if !tok.RevokedAt.IsZero() || !tenantNow.Before(tok.ExpiresAt) || tenantNow.Before(tok.CreatedAt.Add(-time.Minute)) {
		return TokenPair{}, invalid
	}
	if user.Disabled() {
		return TokenPair{}, invalid
	}
	pair, err := s.issue(ctx, user, app, tok.FamilyID, tok.ID)
	if errs.Is(err, errs.Conflict) { // lost a race with another use of the same token
		if err := s.store.RevokeRefreshFamily(ctx, tok.FamilyID, now); err != nil {
			return TokenPair{}, fmt.Errorf("revoke refresh family: %w", err)
		}
		return TokenPair{}, invalid
	}
	return pair, err
}

// issue signs an access token and stores a new refresh token in family. When
// spent is set, that refresh token is marked used in the same transaction.
func (s *Service) issue(ctx context.Context, user identity.User, app identity.Application, family, spent string) (TokenPair, error) {
	now, err := clock.For(ctx, s.clock, user.CustomerID)
	if err != nil {
		return TokenPair{}, err
	}
	kid, key := s.keys.signingKey()
	claims := Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    s.cfg.Issuer,
			Subject:   user.ID,
			IssuedAt:  jwt.NewNumericDate(now),
			NotBefore: jwt.NewNumericDate(now.Add(-time.Minute)),
			ExpiresAt: jwt.NewNumericDate(now.Add(s.cfg.AccessTTL)),
			ID:        uuid.NewString(),
		},
		ClientID:   app.ClientID,
		CustomerID: user.CustomerID,
		Role:       string(user.Role),
		Username:   user.Username,
		Generation: user.TokenGeneration,
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims)
	tok.Header["kid"] = kid
	access, err := tok.SignedString(key)
	if err != nil {
		return TokenPair{}, fmt.Errorf("sign access token: %w", err)
	}
	refresh := "rt_" + identity.RandomSecret(32)
	next := RefreshToken{ID: uuid.NewString(), FamilyID: family, TokenHash: hashToken(refresh), UserID: user.ID,
		ApplicationID: app.ID, CreatedAt: now, ExpiresAt: now.Add(s.cfg.RefreshTTL)}
	if spent == "" {
		err = s.store.CreateRefreshToken(ctx, next)
	} else {
		err = s.store.SpendRefreshToken(ctx, spent, now, next)
	}
	if err != nil {
		return TokenPair{}, fmt.Errorf("store refresh token: %w", err)
	}
	return TokenPair{AccessToken: access, RefreshToken: refresh, ExpiresIn: int(s.cfg.AccessTTL / time.Second)}, nil
}

// Authenticate verifies a bearer access token against the key ring and the
// clock of the token's customer (its tenant's sandbox clock in the
// sandbox), and checks that its user still has the token's generation (see
// GenerationTTL). Any defect (signature, algorithm, issuer, expiry, a user
// changed or disabled since) gives UNAUTHORISED.
func (s *Service) Authenticate(ctx context.Context, token string) (Principal, error) {
	base := clock.Base(s.clock) // basetime: this instance's cache of verified tokens expires in real time
	p, ok := s.seen.get(token, base)
	if !ok {
		var err error
		if p, err = s.verify(ctx, token); err != nil {
			return Principal{}, err
		}
		s.seen.put(token, p, base)
	} else if err := s.checkTime(ctx, p); err != nil {
		return Principal{}, err
	}
	if err := s.checkGeneration(ctx, p); err != nil {
		return Principal{}, err
	}
	return p, nil
}

// errBadToken and errExpiredToken are the answers to a token that fails.
const (
	errBadToken     = "The access token is invalid; obtain a new one at POST /oauth."
	errExpiredToken = "The access token has expired; obtain a new one at POST /oauth."
)

// verify checks a token's signature, algorithm and issuer, then its times
// against the clock of its customer: the customer is known only once the
// signature holds.
func (s *Service) verify(ctx context.Context, token string) (Principal, error) {
	var claims Claims
	_, err := jwt.ParseWithClaims(token, &claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		key, ok := s.keys.publicKey(kid)
		if !ok {
			return nil, fmt.Errorf("unknown key id %q", kid)
		}
		return key, nil
	},
		jwt.WithValidMethods([]string{jwt.SigningMethodEdDSA.Alg()}),
		jwt.WithoutClaimsValidation(), // below, on the customer's clock
	)
	if err != nil {
		return Principal{}, errs.Wrap(errs.Unauthorised, err, "%s", errBadToken)
	}
	if claims.Subject == "" || claims.CustomerID == "" {
		return Principal{}, errs.E(errs.Unauthorised, "The access token is missing required claims.")
	}
	now, err := clock.For(ctx, s.clock, claims.CustomerID)
	if errs.Is(err, errs.NotFound) {
		return Principal{}, errs.Wrap(errs.Unauthorised, err, "%s", errBadToken)
	}
	if err != nil {
		return Principal{}, err
	}
	validate := func(now time.Time) error {
		return jwt.NewValidator(jwt.WithExpirationRequired(), jwt.WithIssuer(s.cfg.Issuer),
			jwt.WithTimeFunc(func() time.Time { return now })).Validate(&claims)
	}
	err = validate(now)
	if errors.Is(err, jwt.ErrTokenNotValidYet) { // issued by an instance that saw an advance first
		if now, err = clock.Fresh(ctx, s.clock, claims.CustomerID); err == nil {
			err = validate(now)
		}
	}
	if err != nil {
		msg := errBadToken
		if errors.Is(err, jwt.ErrTokenExpired) {
			msg = errExpiredToken
		}
		return Principal{}, errs.Wrap(errs.Unauthorised, err, "%s", msg)
	}
	p := Principal{UserID: claims.Subject, Username: claims.Username, CustomerID: claims.CustomerID,
		ClientID: claims.ClientID, Role: identity.Role(claims.Role), TokenID: claims.ID,
		ExpiresAt: claims.ExpiresAt.Time, Generation: claims.Generation}
	if claims.NotBefore != nil {
		p.NotBefore = claims.NotBefore.Time
	}
	return p, nil
}

// checkTime checks a token verified before against the clock of its
// customer, which may have moved since (an advance expires it; after a reset
// a token issued in the tenant's future is not valid yet).
func (s *Service) checkTime(ctx context.Context, p Principal) error {
	now, err := clock.For(ctx, s.clock, p.CustomerID)
	if err != nil {
		return err
	}
	if now.Before(p.NotBefore) { // issued by an instance that saw an advance first?
		if now, err = clock.Fresh(ctx, s.clock, p.CustomerID); err != nil {
			return err
		}
	}
	switch {
	case !now.Before(p.ExpiresAt):
		return errs.E(errs.Unauthorised, "%s", errExpiredToken)
	case now.Before(p.NotBefore):
		return errs.E(errs.Unauthorised, "%s", errBadToken)
	}
	return nil
}

// verifyClient checks an application's client id and secret.
func (s *Service) verifyClient(ctx context.Context, clientID, secret string) (identity.Application, error) {
	app, err := s.store.GetApplicationByClientID(ctx, clientID)
	switch {
	case errs.Is(err, errs.NotFound):
		if _, err := s.hasher.Verify(ctx, "", secret); err != nil {
			return identity.Application{}, err
		}
		return identity.Application{}, errInvalidLogin
	case err != nil:
		return identity.Application{}, fmt.Errorf("load application: %w", err)
	}
	if ok, err := s.hasher.Verify(ctx, app.ClientSecretHash, secret); err != nil || !ok {
		return identity.Application{}, errInvalidLogin
	}
	return app, nil
}

func required(v *errs.Validation, field, value string) {
	if value == "" {
		v.Add(errs.ValueRequired, field, "%s is required.", field)
	}
}

// hashToken is the stored form of a refresh token. The token carries 256
// random bits, so a fast hash is enough: it cannot be guessed or brute-forced.
func hashToken(t string) string {
	sum := sha256.Sum256([]byte(t))
	return hex.EncodeToString(sum[:])
}
