package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"testing"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/seed"
)

// TestNewcomerSeesASignedNotificationInTheInbox is a newcomer's first
// minutes: an empty sandbox, the demo merchant's credentials, a test
// notification, and the signed notification in GET /sandbox/inbox, without
// any receiver written. A demo application left without a URL by an older
// version is pointed at the inbox at the next start.
func TestNewcomerSeesASignedNotificationInTheInbox(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		cfg := config.Default()
		cfg.DataDir, cfg.DatabaseURL, cfg.Addr = t.TempDir(), db.DatabaseURL, addr
		if db.Engine == dbtest.SQLite {
			cfg.DataDir = db.DataDir
		}
		cheap := identity.HashParams{Time: 1, Memory: 1024, Threads: 1}
		ctx := context.Background()
		a, err := app.New(ctx, cfg, quietLog(), app.Options{HashParams: &cheap})
		if err != nil {
			t.Fatal(err)
		}
		demo, err := a.Store().GetApplicationByClientID(ctx, seed.DemoClientID)
		if want := "http://" + addr + "/sandbox/inbox/demo-client"; err != nil || demo.NotificationURL != want {
			t.Fatalf("demo URL %q (%v), want %q", demo.NotificationURL, err, want)
		}
		demo.NotificationURL = "" // as created by an older version
		if err := a.Store().UpdateApplication(ctx, demo); err != nil {
			t.Fatal(err)
		}
		a.Close()

		a, err = app.New(ctx, cfg, quietLog(), app.Options{HashParams: &cheap})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer a.Shutdown(ctx)
		base := "http://" + addr
		call := func(method, path, token string, body any) *http.Response {
			t.Helper()
			b, _ := json.Marshal(body)
			req, _ := http.NewRequest(method, base+path, bytes.NewReader(b))
			req.Header.Set("Content-Type", "application/json")
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { resp.Body.Close() })
			return resp
		}
		var tok struct {
			AccessToken string `json:"access_token"`
		}
		json.NewDecoder(call("POST", "/oauth", "", map[string]string{"grant_type": "password", "client_id": seed.DemoClientID,
			"client_secret": seed.DemoClientSecret, "username": seed.DemoUsername, "password": seed.DemoPassword}).Body).Decode(&tok)
		var sent struct{ Status string }
		if resp := call("POST", "/notifications/test", tok.AccessToken, nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("test notification: %d", resp.StatusCode)
		} else if json.NewDecoder(resp.Body).Decode(&sent); sent.Status != "DELIVERED" {
			t.Fatalf("test notification %+v", sent)
		}
		var entries []struct {
			Type           string `json:"type"`
			SignatureValid bool   `json:"signatureValid"`
		}
		json.NewDecoder(call("GET", "/sandbox/inbox", tok.AccessToken, nil).Body).Decode(&entries)
		if len(entries) != 1 || entries[0].Type != "test" || !entries[0].SignatureValid {
			t.Fatalf("inbox %+v", entries)
		}
	})
}
