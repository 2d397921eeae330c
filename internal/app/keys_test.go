package app_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/dbtest"
)

func kidOf(t *testing.T, token string) string {
	t.Helper()
	h, err := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[0])
	if err != nil {
		t.Fatal(err)
	}
	var header struct{ KID string }
	_ = json.Unmarshal(h, &header)
	return header.KID
}

func jwksKids(t *testing.T, env *apptest.Env) []string {
	t.Helper()
	var jwks struct{ Keys []struct{ KID string } }
	env.Do(t, apptest.Request{Method: "GET", Path: "/.well-known/jwks.json"}).JSON(t, &jwks)
	var kids []string
	for _, k := range jwks.Keys {
		kids = append(kids, k.KID)
	}
	return kids
}

// TestKeyRotationKeepsLiveTokens rotates the signing key on one instance and
// checks that tokens signed before and after work on both instances sharing
// the database, and that the old key is retired only after it can no longer
// have live tokens.
func TestKeyRotationKeepsLiveTokens(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		a := apptest.NewOn(t, db)
		b := apptest.NewOn(t, db)
		ctx := context.Background()
		if kids := jwksKids(t, a); len(kids) != 1 {
			t.Fatalf("want one key at start, got %v", kids)
		}
		before := a.Token(t, apptest.Merchant)
		a.Clock.Advance(time.Second) // kids carry their creation second
		kid, retired, err := a.App.RotateSigningKey(ctx)
		if err != nil || retired != 0 {
			t.Fatalf("rotate: %s %d %v", kid, retired, err)
		}
		after := a.Token(t, apptest.Merchant)
		if kidOf(t, after) != kid || kidOf(t, before) == kid {
			t.Fatalf("new tokens must be signed by the new key %s", kid)
		}
		for _, env := range []*apptest.Env{a, b} {
			for _, tok := range []string{before, after} {
				if resp := env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/clock", Token: tok}); resp.Status != 200 {
					t.Fatalf("token with kid %s refused: %d %s", kidOf(t, tok), resp.Status, resp.Body)
				}
			}
		}
		if kids := jwksKids(t, a); len(kids) != 2 || kids[1] != kid {
			t.Fatalf("JWKS after rotation: %v", kids)
		}
		// Once the new key has signed for a whole token lifetime, the old key goes.
		a.Clock.Advance(a.Config.AccessTokenTTL + time.Minute)
		b.Clock.Advance(a.Config.AccessTokenTTL + time.Minute)
		if _, retired, err := a.App.RotateSigningKey(ctx); err != nil || retired != 1 {
			t.Fatalf("second rotation retired %d keys, %v; want 1", retired, err)
		}
		if kids := jwksKids(t, a); len(kids) != 2 || kids[0] != kid {
			t.Fatalf("JWKS after retirement: %v (want %s first)", kids, kid)
		}
	})
}
