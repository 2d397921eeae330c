package app_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/auth"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/identity"
)

// TestUserChangesRevokeTokensOnEveryInstance: a demoted or disabled user's
// access tokens, issued before the change, stop working on every instance
// sharing the database once the generation cache has refreshed (issue 11,
// item 4). The clocks are advanced instead of sleeping.
func TestUserChangesRevokeTokensOnEveryInstance(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		a, b := apptest.NewOn(t, db), apptest.NewOn(t, db)
		ctx := context.Background()
		read := func(env *apptest.Env, token string) *apptest.Response {
			return env.Do(t, apptest.Request{Method: "GET", Path: "/payments", Token: token})
		}
		refresh := func() {
			a.Clock.Advance(auth.GenerationTTL)
			b.Clock.Advance(auth.GenerationTTL)
		}

		// Demotion, through the admin path (`bankrail user create` again).
		old := a.Token(t, apptest.Merchant)
		for _, env := range []*apptest.Env{a, b} {
			if resp := read(env, old); resp.Status != http.StatusOK { // both instances cache the user
				t.Fatalf("before the change: %d %s", resp.Status, resp.Body)
			}
		}
		if _, outcome, err := a.App.Identity().EnsureUser(ctx, identity.UserSpec{CustomerID: apptest.ShopID,
			Username: apptest.Merchant.Username, Password: apptest.Merchant.Password, Role: "READ_ONLY"}); err != nil || outcome != identity.Updated {
			t.Fatalf("demote: %s %v", outcome, err)
		}
		refresh()
		for name, env := range map[string]*apptest.Env{"a": a, "b": b} {
			e := read(env, old).Error(t, http.StatusUnauthorized, "UNAUTHORISED")
			t.Logf("old token on %s: %s", name, e.Message)
		}
		fresh := a.Token(t, apptest.Merchant)
		if resp := read(b, fresh); resp.Status != http.StatusOK {
			t.Fatalf("a new token works: %d %s", resp.Status, resp.Body)
		}
		b.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/clock/advance", Token: fresh, Body: map[string]int{"seconds": 5}}).
			Error(t, http.StatusForbidden, "ACCESS_DENIED") // with the new role

		// Disabling (`bankrail user disable`): tokens stop, sign-in and refresh fail.
		tokens := a.Login(t, apptest.Viewer)
		if resp := read(b, tokens.AccessToken); resp.Status != http.StatusOK {
			t.Fatalf("viewer before: %d %s", resp.Status, resp.Body)
		}
		if _, _, err := b.App.Identity().DisableUser(ctx, apptest.Viewer.Username); err != nil {
			t.Fatal(err)
		}
		refresh()
		read(a, tokens.AccessToken).Error(t, http.StatusUnauthorized, "UNAUTHORISED")
		read(b, tokens.AccessToken).Error(t, http.StatusUnauthorized, "UNAUTHORISED")
		a.Do(t, apptest.Request{Method: "POST", Path: "/oauth", Body: map[string]string{"grant_type": "password",
			"client_id": apptest.Viewer.ClientID, "client_secret": apptest.Viewer.ClientSecret,
			"username": apptest.Viewer.Username, "password": apptest.Viewer.Password}}).Error(t, http.StatusUnauthorized, "UNAUTHORISED")
		a.Do(t, apptest.Request{Method: "POST", Path: "/oauth", Body: map[string]string{"grant_type": "refresh_token",
			"client_id": apptest.Viewer.ClientID, "client_secret": apptest.Viewer.ClientSecret,
			"refresh_token": tokens.RefreshToken}}).Error(t, http.StatusUnauthorized, "UNAUTHORISED")
	})
}

// TestUserChangesRevokeTokensAtOnceOnTheChangingInstance: the instance that
// changes a user's password or role, or disables it, refuses the user's old
// token from the very next request, without waiting for its generation
// cache (issue 28, item 8). The clock never advances: on the old code the
// cached generation still admitted the token.
func TestUserChangesRevokeTokensAtOnceOnTheChangingInstance(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		env := apptest.NewOn(t, db)
		ctx := context.Background()
		pay := func(token string) *apptest.Response {
			return env.Do(t, apptest.Request{Method: "POST", Path: "/payments", Token: token, Body: apptest.EUPayment(),
				Header: map[string]string{"X-Service-Api-Version": "1", "X-Service-Initiation-Channel": "hosted"}})
		}
		cached := func(token string) { // the generation is read and cached
			t.Helper()
			if resp := env.Do(t, apptest.Request{Method: "GET", Path: "/payments", Token: token}); resp.Status != http.StatusOK {
				t.Fatalf("before the change: %d %s", resp.Status, resp.Body)
			}
		}
		merchant := apptest.Merchant
		ensure := func(password, role string) {
			t.Helper()
			if _, outcome, err := env.App.Identity().EnsureUser(ctx, identity.UserSpec{CustomerID: apptest.ShopID,
				Username: merchant.Username, Password: password, Role: role}); err != nil || outcome != identity.Updated {
				t.Fatalf("change %s: %s %v", merchant.Username, outcome, err)
			}
		}

		// A new password.
		old := env.Token(t, merchant)
		cached(old)
		ensure("shop-password-2", "MERCHANT")
		pay(old).Error(t, http.StatusUnauthorized, "UNAUTHORISED")
		merchant.Password = "shop-password-2"

		// A demotion.
		old = env.Token(t, merchant)
		cached(old)
		if resp := pay(old); resp.Status != http.StatusCreated {
			t.Fatalf("a merchant pays: %d %s", resp.Status, resp.Body)
		}
		ensure(merchant.Password, "READ_ONLY")
		pay(old).Error(t, http.StatusUnauthorized, "UNAUTHORISED")

		// Disabling: 401, not the 403 of the viewer's role.
		viewer := env.Token(t, apptest.Viewer)
		cached(viewer)
		pay(viewer).Error(t, http.StatusForbidden, "ACCESS_DENIED")
		if _, _, err := env.App.Identity().DisableUser(ctx, apptest.Viewer.Username); err != nil {
			t.Fatal(err)
		}
		pay(viewer).Error(t, http.StatusUnauthorized, "UNAUTHORISED")
	})
}
