package app_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/seed"
)

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// start runs bankrail on SQLite in dir with production-strength hashing.
func start(b *testing.B, dir string) *app.App {
	b.Helper()
	cfg := config.Default()
	cfg.DataDir, cfg.Addr = dir, "127.0.0.1:0"
	cfg.APIRateLimit = math.MaxInt64 // counted, never refused: the figures include the count
	a, err := app.New(context.Background(), cfg, quietLog(), app.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := a.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	return a
}

func get(b *testing.B, c *http.Client, url, token string) {
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		b.Error(err)
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		b.Errorf("GET %s: %d", url, resp.StatusCode)
	}
}

// BenchmarkStartup measures start to ready: open and migrate the database,
// create the demo merchant (empty directory only), load keys, listen and
// answer /healthz.
func BenchmarkStartup(b *testing.B) {
	for _, empty := range []bool{true, false} {
		name := "existing-data-dir"
		if empty {
			name = "empty-data-dir"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			if !empty {
				a := start(b, dir)
				_ = a.Close()
			}
			for i := 0; b.Loop(); i++ {
				d := dir
				if empty {
					d = fmt.Sprintf("%s/%d", dir, i)
				}
				a := start(b, d)
				get(b, http.DefaultClient, "http://"+a.Addr()+"/healthz", "")
				_ = a.Close()
			}
		})
	}
}

// BenchmarkRequests compares an authenticated no-op request and the OAuth
// password grant with an unauthenticated /healthz measured in the same run.
func BenchmarkRequests(b *testing.B) {
	a := start(b, b.TempDir())
	defer a.Close()
	base := "http://" + a.Addr()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	login := fmt.Sprintf(`{"grant_type":"password","client_id":%q,"client_secret":%q,"username":%q,"password":%q}`,
		seed.DemoClientID, seed.DemoClientSecret, seed.DemoUsername, seed.DemoPassword)
	oauth := func() string {
		resp, err := client.Post(base+"/oauth", "application/json", strings.NewReader(login))
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("oauth: %d %s", resp.StatusCode, body)
		}
		return string(body)
	}
	tok := oauth()
	token := tok[strings.Index(tok, `"access_token":"`)+16:]
	token = token[:strings.IndexByte(token, '"')]

	b.Run("reference-healthz", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				get(b, client, base+"/healthz", "")
			}
		})
	})
	b.Run("authenticated-noop", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				get(b, client, base+"/sandbox/clock", token)
			}
		})
	})
	b.Run("oauth-password-grant", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				oauth()
			}
		})
	})
}
