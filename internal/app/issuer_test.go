package app_test

import (
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
)

// TestInstancesAcceptEachOthersTokens: two instances on one database, with
// different listen addresses and no --public-url, accept each other's
// tokens: the issuer is a setting of the deployment, not of the listen
// address (issue 11, item 7).
func TestInstancesAcceptEachOthersTokens(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		at := func(addr string) apptest.Option {
			return func(c *config.Config) { c.Addr, c.PublicURL = addr, "" }
		}
		a := apptest.NewOn(t, db, at("127.0.0.1:18081"))
		b := apptest.NewOn(t, db, at("10.0.0.2:8080"))
		for _, tc := range []struct {
			name       string
			issuer, on *apptest.Env
		}{{"a's token on b", a, b}, {"b's token on a", b, a}} {
			tok := tc.issuer.Token(t, apptest.Merchant)
			if resp := tc.on.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/clock", Token: tok}); resp.Status != 200 {
				t.Fatalf("%s refused: %d %s", tc.name, resp.Status, resp.Body)
			}
		}
	})
}
