package app_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/seed"
)

// The admin listener is off unless asked for; on, it serves pprof on its
// own address and the API's address still has no /debug/pprof/.
func TestAdminListenerServesPprof(t *testing.T) {
	t.Parallel()
	start := func(admin string) *app.App {
		cfg := config.Default()
		cfg.Addr, cfg.AdminAddr, cfg.DataDir, cfg.LogLevel = "127.0.0.1:0", admin, t.TempDir(), "warn"
		demo := seed.Demo("")
		a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), app.Options{Seed: &demo})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = a.Shutdown(ctx)
		})
		return a
	}
	get := func(url string) (int, string) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	off := start("")
	if off.AdminAddr() != "" {
		t.Fatalf("admin listener on by default at %s", off.AdminAddr())
	}
	on := start("127.0.0.1:0")
	if status, body := get("http://" + on.AdminAddr() + "/debug/pprof/"); status != 200 || !strings.Contains(body, "goroutine") {
		t.Fatalf("pprof index: %d %.200s", status, body)
	}
	if status, body := get("http://" + on.AdminAddr() + "/debug/pprof/heap?debug=1"); status != 200 || !strings.Contains(body, "heap profile") {
		t.Fatalf("heap profile: %d %.200s", status, body)
	}
	for _, a := range []*app.App{off, on} {
		if status, _ := get("http://" + a.Addr() + "/debug/pprof/"); status != http.StatusNotFound {
			t.Fatalf("the API's address serves /debug/pprof/: %d", status)
		}
	}
}
