package failover_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/notify/dispatch"
	"github.com/bankrail/bankrail/internal/seed"
)

// The merchant of the test.
const (
	customerID   = "60000000-0000-4000-8000-000000000001"
	accountID    = "60000000-0000-4000-8000-0000000000e1"
	clientID     = "failover-client"
	clientSecret = "failover-client-secret"
	username     = "merchant@failover.test"
	password     = "failover-password"
)

// instance is one bankrail served over HTTP on databaseURL, with the
// wall clock and its workers running: as `bankrail serve` runs it.
func instance(t *testing.T, databaseURL, notificationURL string) (*app.App, string) {
	t.Helper()
	return instanceWith(t, databaseURL, notificationURL, nil)
}

// instanceWith is instance with its configuration changed by set (nil:
// the defaults).
func instanceWith(t *testing.T, databaseURL, notificationURL string, set func(*config.Config)) (*app.App, string) {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.DatabaseURL = databaseURL
	cfg.Addr = "127.0.0.1:0"
	cfg.PublicURL = "http://bankrail.test"
	if set != nil {
		set(&cfg)
	}
	hp := identity.HashParams{Time: 1, Memory: 1024, Threads: 1}
	f := seed.File{Customers: []seed.Customer{{ID: customerID, Name: "Failover Shop",
		Applications: []seed.Application{{ClientID: clientID, ClientSecret: clientSecret,
			NotificationURL: notificationURL, NotificationSecret: "failover-notification-secret"}},
		Users:    []seed.User{{Username: username, Password: password, Role: "MERCHANT"}},
		Accounts: []seed.Account{{ID: accountID, Currency: "EUR"}}}}}
	log := slog.New(slog.DiscardHandler) // BANKRAIL_TEST_LOG=1 shows the warnings
	if os.Getenv("BANKRAIL_TEST_LOG") == "1" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := app.New(ctx, cfg, log, app.Options{HashParams: &hp, Seed: &f,
		Dispatch: dispatch.Options{Timeout: 2 * time.Second}})
	if err != nil {
		t.Fatalf("start bankrail: %v", err)
	}
	srv := httptest.NewServer(a.Handler())
	a.StartWorkers(context.Background())
	t.Cleanup(func() {
		srv.Close()
		_ = a.Close()
	})
	return a, srv.URL
}

// answers counts the HTTP answers clients got by status, and keeps the
// first 500's body: a failover must be answered 503, never 500.
type answers struct {
	mu        sync.Mutex
	byStatus  map[int]int
	transport int
	first500  string
}

func (c *answers) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.transport++
		return resp, err
	}
	c.byStatus[resp.StatusCode]++
	if resp.StatusCode == http.StatusInternalServerError && c.first500 == "" {
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		c.first500 = r.Method + " " + r.URL.Path + ": " + string(b)
		resp.Body = io.NopCloser(strings.NewReader(string(b)))
	}
	return resp, nil
}
