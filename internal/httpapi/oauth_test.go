package httpapi_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/bankrail/bankrail/internal/apptest"
)

func passwordBody(l apptest.Login) map[string]string {
	return map[string]string{"grant_type": "password", "client_id": l.ClientID, "client_secret": l.ClientSecret,
		"username": l.Username, "password": l.Password}
}

func TestOAuth(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		t.Run("token verifies against the JWKS with a standard JWT library", func(t *testing.T) {
			tok := env.Login(t, apptest.Merchant)
			if tok.TokenType != "Bearer" || tok.ExpiresIn != 86400 || tok.RefreshToken == "" {
				t.Fatalf("token response %+v", tok)
			}
			var jwks struct {
				Keys []struct{ KTY, CRV, X, KID, ALG string } `json:"keys"`
			}
			env.Do(t, apptest.Request{Method: "GET", Path: "/.well-known/jwks.json"}).JSON(t, &jwks)
			keys := map[string]ed25519.PublicKey{}
			for _, k := range jwks.Keys {
				x, err := base64.RawURLEncoding.DecodeString(k.X)
				if err != nil || k.KTY != "OKP" || k.CRV != "Ed25519" || k.ALG != "EdDSA" {
					t.Fatalf("bad JWK %+v", k)
				}
				keys[k.KID] = x
			}
			claims := jwt.MapClaims{}
			parsed, err := jwt.ParseWithClaims(tok.AccessToken, claims, func(tk *jwt.Token) (any, error) {
				return keys[tk.Header["kid"].(string)], nil
			}, jwt.WithValidMethods([]string{"EdDSA"}), jwt.WithTimeFunc(func() time.Time { return apptest.Epoch }))
			if err != nil || !parsed.Valid {
				t.Fatalf("token does not verify: %v", err)
			}
			for _, c := range []string{"iss", "sub", "exp", "iat", "jti", "client_id", "customer_id", "role"} {
				if _, ok := claims[c]; !ok {
					t.Errorf("claim %s missing: %v", c, claims)
				}
			}
			if claims["customer_id"] != apptest.ShopID || claims["role"] != "MERCHANT" || claims["client_id"] != "shop-client" {
				t.Fatalf("claims %v", claims)
			}
			exp, _ := claims.GetExpirationTime()
			iat, _ := claims.GetIssuedAt()
			if exp.Sub(iat.Time) != 24*time.Hour {
				t.Fatalf("token lives %s, want 24h", exp.Sub(iat.Time))
			}
		})

		t.Run("refresh works once and reuse revokes the family", func(t *testing.T) {
			first := env.Login(t, apptest.Merchant)
			refresh := func(rt string) *apptest.Response {
				return env.Do(t, apptest.Request{Method: "POST", Path: "/oauth", Body: map[string]string{
					"grant_type": "refresh_token", "client_id": "shop-client", "client_secret": "shop-client-secret", "refresh_token": rt}})
			}
			resp := refresh(first.RefreshToken)
			if resp.Status != http.StatusOK {
				t.Fatalf("first refresh: %d %s", resp.Status, resp.Body)
			}
			var second apptest.Tokens
			resp.JSON(t, &second)
			if second.RefreshToken == first.RefreshToken || second.AccessToken == "" {
				t.Fatal("refresh must return a new pair")
			}
			refresh(first.RefreshToken).Error(t, http.StatusUnauthorized, "UNAUTHORISED")
			// The reuse revoked the family: the second token, never used, is dead too.
			refresh(second.RefreshToken).Error(t, http.StatusUnauthorized, "UNAUTHORISED")
			// A refresh token belongs to its application.
			other := env.Login(t, apptest.Merchant)
			resp = env.Do(t, apptest.Request{Method: "POST", Path: "/oauth", Body: map[string]string{
				"grant_type": "refresh_token", "client_id": "psp-client", "client_secret": "psp-client-secret", "refresh_token": other.RefreshToken}})
			resp.Error(t, http.StatusUnauthorized, "UNAUTHORISED")
		})

		t.Run("refresh token expires after 24 hours", func(t *testing.T) {
			tok := env.Login(t, apptest.Merchant)
			admin := env.Token(t, apptest.PSPAdmin)
			env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/clock/advance", Token: admin, Body: map[string]int{"seconds": 86401}})
			resp := env.Do(t, apptest.Request{Method: "POST", Path: "/oauth", Body: map[string]string{
				"grant_type": "refresh_token", "client_id": "shop-client", "client_secret": "shop-client-secret", "refresh_token": tok.RefreshToken}})
			resp.Error(t, http.StatusUnauthorized, "UNAUTHORISED")
		})

		t.Run("legacy oauth takes a form and answers errors in the legacy shape", func(t *testing.T) {
			form := url.Values{"grant_type": {"password"}, "client_id": {"shop-client"}, "client_secret": {"shop-client-secret"},
				"username": {"merchant@shop.test"}, "password": {"shop-password"}}
			resp := env.Do(t, apptest.Request{Method: "POST", Path: "/legacy/oauth", Body: form.Encode(),
				Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}})
			var tok apptest.Tokens
			resp.JSON(t, &tok)
			if resp.Status != http.StatusOK || tok.AccessToken == "" {
				t.Fatalf("legacy oauth: %d %s", resp.Status, resp.Body)
			}
			form.Set("password", "wrong")
			form.Del("client_id")
			resp = env.Do(t, apptest.Request{Method: "POST", Path: "/legacy/oauth", Body: form.Encode(),
				Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}})
			var legacy struct {
				Exception struct {
					Code      int                                  `json:"code"`
					Message   string                               `json:"message"`
					ErrorList []struct{ Property, Message string } `json:"errorList"`
				} `json:"exception"`
			}
			resp.JSON(t, &legacy)
			if resp.Status != http.StatusUnprocessableEntity || legacy.Exception.Code != 422 ||
				legacy.Exception.Message != "Validation exception" || len(legacy.Exception.ErrorList) != 1 ||
				legacy.Exception.ErrorList[0].Property != "client_id" {
				t.Fatalf("legacy error: %d %s", resp.Status, resp.Body)
			}
		})
	})
}

func TestOAuthCustomerTree(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	tests := []struct {
		name   string
		login  apptest.Login
		status int
	}{
		{"merchant through its own application", apptest.Merchant, http.StatusOK},
		{"merchant through its PSP's application", cred("psp-client", "psp-client-secret", "merchant@shop.test", "shop-password"), http.StatusOK},
		{"PSP user through a merchant's application", cred("shop-client", "shop-client-secret", "admin@psp.test", "psp-password"), http.StatusUnauthorized},
		{"merchant through an unrelated application", cred("other-client", "other-client-secret", "merchant@shop.test", "shop-password"), http.StatusUnauthorized},
		{"wrong client secret", cred("shop-client", "nope-nope-nope", "merchant@shop.test", "shop-password"), http.StatusUnauthorized},
		{"unknown client", cred("ghost", "ghost-secret", "merchant@shop.test", "shop-password"), http.StatusUnauthorized},
		{"unknown user", cred("shop-client", "shop-client-secret", "ghost@shop.test", "whatever"), http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := env.Do(t, apptest.Request{Method: "POST", Path: "/oauth", Body: passwordBody(tt.login)})
			if resp.Status != tt.status {
				t.Fatalf("got %d %s, want %d", resp.Status, resp.Body, tt.status)
			}
			if tt.status != http.StatusOK {
				resp.Error(t, tt.status, "UNAUTHORISED")
			}
		})
	}
}

func TestOAuthRequestErrors(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	tests := []struct {
		name        string
		body        any
		contentType string
		status      int
		code        string
		paths       []string
	}{
		{"malformed JSON", `{"grant_type":`, "application/json", 400, "BAD_REQUEST", nil},
		{"empty body", ``, "application/json", 400, "BAD_REQUEST", nil},
		{"not an object", `[1,2]`, "application/json", 400, "BAD_REQUEST", nil},
		{"trailing data", `{"grant_type":"password"} {}`, "application/json", 400, "BAD_REQUEST", nil},
		{"wrong type", `{"grant_type":"password","client_id":5}`, "application/json", 422, "VALIDATION_FAILURE", []string{"client_id"}},
		{"unsupported media type", `grant_type=password`, "text/plain", 415, "UNSUPPORTED_MEDIA_TYPE", nil},
		{"missing grant type", map[string]string{}, "application/json", 422, "VALIDATION_FAILURE", []string{"grant_type"}},
		{"unknown grant type", map[string]string{"grant_type": "client_credentials"}, "application/json", 422, "VALIDATION_FAILURE", []string{"grant_type"}},
		{"every missing field listed", map[string]string{"grant_type": "password"}, "application/json", 422, "VALIDATION_FAILURE",
			[]string{"client_id", "client_secret", "username", "password"}},
		{"refresh without token", map[string]string{"grant_type": "refresh_token", "client_id": "a", "client_secret": "b"}, "application/json", 422, "VALIDATION_FAILURE",
			[]string{"refresh_token"}},
		{"body too large (413 since issue 11)", `{"grant_type":"` + strings.Repeat("x", 2<<20) + `"}`, "application/json", 413, "PAYLOAD_TOO_LARGE", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := env.Do(t, apptest.Request{Method: "POST", Path: "/oauth", Body: tt.body, Header: map[string]string{"Content-Type": tt.contentType}})
			e := resp.Error(t, tt.status, tt.code)
			if len(e.Errors) != len(tt.paths) {
				t.Fatalf("errors %+v, want paths %v", e.Errors, tt.paths)
			}
			for i, p := range tt.paths {
				if e.Errors[i].PropertyPath != p || e.Errors[i].Type == "" || e.Errors[i].Message == "" {
					t.Errorf("error %d = %+v, want path %s", i, e.Errors[i], p)
				}
			}
		})
	}
}

func TestFailedLoginsAreThrottled(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		wrong := apptest.Merchant
		wrong.Password = "not-the-password"
		for i := 0; i < env.Config.LoginMaxFailures; i++ {
			env.Do(t, apptest.Request{Method: "POST", Path: "/oauth", Body: passwordBody(wrong)}).Error(t, 401, "UNAUTHORISED")
		}
		// Locked: even the right password is refused, with Retry-After.
		resp := env.Do(t, apptest.Request{Method: "POST", Path: "/oauth", Body: passwordBody(apptest.Merchant)})
		resp.Error(t, http.StatusTooManyRequests, "TOO_MANY_REQUESTS")
		if ra := resp.Header.Get("Retry-After"); ra != "900" {
			t.Fatalf("Retry-After = %q, want 900", ra)
		}
		// Another user from the same address is not locked by this user's failures.
		env.Login(t, apptest.Viewer)
		// The lock follows the clock.
		env.Clock.Advance(env.Config.LoginFailureWindow + time.Second)
		env.Login(t, apptest.Merchant)
	})
}

func TestAuthenticationOfRequests(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	good := env.Token(t, apptest.Merchant)
	parts := strings.Split(good, ".")
	header, _ := base64.RawURLEncoding.DecodeString(parts[0])
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])

	var claims map[string]any
	_ = json.Unmarshal(payload, &claims)
	claims["role"] = "ADMIN"
	tampered, _ := json.Marshal(claims)
	noneHeader := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
	_, otherKey, _ := ed25519.GenerateKey(nil)
	foreign := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims(claims))
	var hdr map[string]any
	_ = json.Unmarshal(header, &hdr)
	foreign.Header["kid"] = hdr["kid"]
	foreignToken, _ := foreign.SignedString(otherKey)
	hsToken, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims(claims)).SignedString([]byte("guess"))
	claims["iss"] = "https://evil.test"
	wrongIssuer := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims(claims))

	tests := []struct {
		name, authorization string
	}{
		{"missing header", ""},
		{"wrong scheme", "Basic " + good},
		{"empty bearer", "Bearer "},
		{"garbage", "Bearer not.a.jwt"},
		{"tampered payload", "Bearer " + parts[0] + "." + base64.RawURLEncoding.EncodeToString(tampered) + "." + parts[2]},
		{"alg none", "Bearer " + noneHeader + "." + parts[1] + "."},
		{"signed by another key", "Bearer " + foreignToken},
		{"HS256 with a guessed secret", "Bearer " + hsToken},
		{"unknown kid", "Bearer " + func() string { s, _ := wrongIssuer.SignedString(otherKey); return s }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/clock", Header: map[string]string{"Authorization": tt.authorization}})
			resp.Error(t, http.StatusUnauthorized, "UNAUTHORISED")
			if resp.Header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
	t.Run("good token", func(t *testing.T) {
		if resp := env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/clock", Token: good}); resp.Status != 200 {
			t.Fatalf("good token refused: %d %s", resp.Status, resp.Body)
		}
	})
}

func TestTokenExpiresWithTheSandboxClock(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		resp := env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/clock/advance", Token: token, Body: map[string]int{"seconds": 86401}})
		var c struct {
			Now           time.Time `json:"now"`
			OffsetSeconds int64     `json:"offsetSeconds"`
		}
		resp.JSON(t, &c)
		if resp.Status != 200 || c.OffsetSeconds != 86401 || !c.Now.Equal(apptest.Epoch.Add(86401*time.Second)) {
			t.Fatalf("advance: %d %s", resp.Status, resp.Body)
		}
		e := env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/clock", Token: token}).Error(t, http.StatusUnauthorized, "UNAUTHORISED")
		if !strings.Contains(e.Message, "expired") {
			t.Fatalf("message %q should say the token expired", e.Message)
		}
		// A new token works at the new time.
		fresh := env.Token(t, apptest.Merchant)
		if resp := env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/clock", Token: fresh}); resp.Status != 200 {
			t.Fatalf("fresh token: %d %s", resp.Status, resp.Body)
		}
	})
}

func TestSandboxClockValidationAndPermissions(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	merchant := env.Token(t, apptest.Merchant)
	viewer := env.Token(t, apptest.Viewer)
	env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/clock/advance", Token: viewer, Body: map[string]int{"seconds": 5}}).
		Error(t, http.StatusForbidden, "ACCESS_DENIED")
	for name, body := range map[string]any{
		"missing": map[string]any{}, "zero": map[string]int{"seconds": 0}, "negative": map[string]int{"seconds": -5},
		"too far": map[string]int{"seconds": 400*86400 + 1}, "string": map[string]string{"seconds": "60"},
	} {
		t.Run(name, func(t *testing.T) {
			e := env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/clock/advance", Token: merchant, Body: body}).
				Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
			if len(e.Errors) != 1 || e.Errors[0].PropertyPath != "seconds" {
				t.Fatalf("errors %+v", e.Errors)
			}
		})
	}
}

func TestProductionHasNoSandbox(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.Production)
	token := env.Token(t, apptest.Merchant)
	env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/clock", Token: token}).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
	env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/clock/advance", Token: token, Body: map[string]int{"seconds": 5}}).
		Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
}

func cred(clientID, clientSecret, username, password string) apptest.Login {
	return apptest.Login{ClientID: clientID, ClientSecret: clientSecret, Username: username, Password: password}
}
