package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/seed"
)

// syncBuffer is a bytes.Buffer safe for a writer goroutine and a reader.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestCommandLineHelpAndErrors(t *testing.T) {
	tests := []struct {
		args     []string
		code     int
		contains string
	}{
		{nil, 2, "Commands:"},
		{[]string{"help"}, 0, "bankrail serve"},
		{[]string{"version"}, 0, "bankrail "},
		{[]string{"serve", "--help"}, 0, "--database-url"},
		{[]string{"migrate", "-h"}, 0, "pending database migration"},
		{[]string{"customer", "create", "--help"}, 0, "--parent"},
		{[]string{"bogus"}, 2, `unknown command "bogus"`},
		{[]string{"serve", "--no-such-flag"}, 2, "no-such-flag"},
		{[]string{"serve", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"serve", "--mode", "staging"}, 1, "--mode must be sandbox or production"},
		{[]string{"keys"}, 2, "bankrail keys rotate"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, errOut := runCmd(t, tt.args...)
			if code != tt.code || !strings.Contains(out+errOut, tt.contains) {
				t.Fatalf("exit %d (want %d); output does not contain %q:\n%s%s", code, tt.code, tt.contains, out, errOut)
			}
		})
	}
}

func TestEnvironmentFillsUnsetFlags(t *testing.T) {
	t.Setenv("BANKRAIL_MODE", "staging")
	code, _, errOut := runCmd(t, "migrate", "--data-dir", t.TempDir())
	if code != 1 || !strings.Contains(errOut, `got "staging"`) {
		t.Fatalf("BANKRAIL_MODE was not applied: exit %d, %s", code, errOut)
	}
	// A flag on the command line wins over the environment.
	code, out, errOut := runCmd(t, "migrate", "--data-dir", t.TempDir(), "--mode", "production")
	if code != 0 || !strings.Contains(out, "up to date") {
		t.Fatalf("flag did not win: exit %d, %s%s", code, out, errOut)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestServeBannerCurlGetsAToken starts `bankrail serve` on an empty data
// directory, waits for /healthz, runs the request the banner's curl shows,
// and shuts down gracefully.
func TestServeBannerCurlGetsAToken(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"serve", "--addr", addr, "--data-dir", t.TempDir()}, &out, &errOut) }()

	deadline := time.Now().Add(30 * time.Second) // the demo merchant's argon2id hashes take seconds on a loaded machine
	for !strings.Contains(out.String(), "Stop with Ctrl-C") {
		if time.Now().After(deadline) {
			t.Fatalf("no banner; stderr:\n%s", errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	banner := out.String()
	m := regexp.MustCompile(`curl -s (\S+) -H 'Content-Type: application/json' \\\n\s+-d '([^']+)'`).FindStringSubmatch(banner)
	if m == nil {
		t.Fatalf("banner has no curl command:\n%s", banner)
	}
	if resp, err := http.Get("http://" + addr + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	// The banner's next steps name the start page, which a browser opens.
	start := regexp.MustCompile(`start page\s+(http://\S+/) `).FindStringSubmatch(banner)
	if start == nil || !strings.Contains(banner, "Next: open "+start[1]+" ") {
		t.Fatalf("the banner does not point at GET /:\n%s", banner)
	}
	page, err := http.Get(start[1])
	if err != nil {
		t.Fatal(err)
	}
	page.Body.Close()
	if page.StatusCode != 200 || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("start page: %d %s", page.StatusCode, page.Header.Get("Content-Type"))
	}
	resp, err := http.Post(m[1], "application/json", strings.NewReader(m[2]))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
	}
	if err := json.Unmarshal(body, &tok); err != nil || resp.StatusCode != 200 || tok.AccessToken == "" || tok.ExpiresIn != 86400 {
		t.Fatalf("banner curl: %d %s", resp.StatusCode, body)
	}
	followBannerNextSteps(t, banner, tok.AccessToken)
	// The banner names the demo operator, whose credentials sign in too.
	for _, w := range []string{"Demo operator", seed.DemoOperatorClientID, seed.DemoOperatorClientSecret, seed.DemoOperatorUsername, seed.DemoOperatorPassword} {
		if !strings.Contains(banner, w) {
			t.Fatalf("the banner does not name %q:\n%s", w, banner)
		}
	}
	op, err := http.Post(m[1], "application/json", strings.NewReader(fmt.Sprintf(`{"grant_type":"password","client_id":%q,"client_secret":%q,"username":%q,"password":%q}`,
		seed.DemoOperatorClientID, seed.DemoOperatorClientSecret, seed.DemoOperatorUsername, seed.DemoOperatorPassword)))
	if err != nil {
		t.Fatal(err)
	}
	op.Body.Close()
	if op.StatusCode != 200 {
		t.Fatalf("the demo operator's sign-in: %d", op.StatusCode)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve exited %d; stderr:\n%s", code, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not shut down")
	}
	if !strings.Contains(errOut.String(), "stopped") {
		t.Fatalf("no orderly shutdown in the log:\n%s", errOut.String())
	}
}

func TestAdminCommandsCreateWhatTheyName(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		storage, admin := adminOn(t, db)
		const psp, shop = "7b000000-0000-4000-8000-000000000001", "7b000000-0000-4000-8000-000000000002"
		admin("customer", "create", "--name", "Acme PSP", "--id", psp)
		out := admin("customer", "create", "--name", "Acme Shop", "--id", shop, "--parent", psp)
		if !strings.Contains(out, "created") {
			t.Fatalf("customer create: %s", out)
		}
		if out := admin("customer", "create", "--name", "Acme Shop", "--id", shop, "--parent", psp); !strings.Contains(out, "unchanged") {
			t.Fatalf("second create must change nothing: %s", out)
		}
		out = admin("application", "create", "--customer", shop, "--client-id", "acme-client", "--notification-url", "https://203.0.113.10/hooks")
		secret := regexp.MustCompile(`client secret \(shown once\): (\S+)`).FindStringSubmatch(out)
		if secret == nil {
			t.Fatalf("no generated client secret: %s", out)
		}
		out = admin("user", "create", "--customer", shop, "--username", "ops@acme.test", "--role", "READ_ONLY")
		password := regexp.MustCompile(`password \(shown once\): (\S+)`).FindStringSubmatch(out)
		if password == nil {
			t.Fatalf("no generated password: %s", out)
		}
		admin("keys", "rotate")
		admin("user", "create", "--customer", shop, "--username", "gone@acme.test")
		if out := admin("user", "disable", "--username", "gone@acme.test"); !strings.Contains(out, "updated") {
			t.Fatalf("user disable: %s", out)
		}

		code, _, errOut := runCmd(t, append([]string{"user", "create", "--customer", "7b000000-0000-4000-8000-0000000000ff", "--username", "x@y.z"}, storage...)...)
		if code != 1 || !strings.Contains(errOut, "--customer") {
			t.Fatalf("unknown customer: exit %d %s", code, errOut)
		}

		// What was created works: the user can sign in through the application.
		cfg := config.Default()
		cfg.Mode, cfg.DataDir, cfg.DatabaseURL = config.Production, storage[1], db.DatabaseURL
		a, err := app.New(context.Background(), cfg, newLogger(cfg, io.Discard), app.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		u, err := a.Store().GetUserByUsername(context.Background(), "ops@acme.test")
		if err != nil || u.Role != identity.RoleReadOnly || u.CustomerID != shop {
			t.Fatalf("user %+v, %v", u, err)
		}
		if ok, _ := identity.VerifySecret(u.PasswordHash, password[1]); !ok {
			t.Fatal("printed password does not verify")
		}
		app, err := a.Store().GetApplicationByClientID(context.Background(), "acme-client")
		if err != nil || app.NotificationURL != "https://203.0.113.10/hooks" {
			t.Fatalf("application %+v, %v", app, err)
		}
		if ok, _ := identity.VerifySecret(app.ClientSecretHash, secret[1]); !ok {
			t.Fatal("printed client secret does not verify")
		}
		if gone, err := a.Store().GetUserByUsername(context.Background(), "gone@acme.test"); err != nil || !gone.Disabled() || gone.TokenGeneration != 1 {
			t.Fatalf("disabled user %+v, %v", gone, err)
		}
		if n, _ := a.Store().CountCustomers(context.Background()); n != 2 {
			t.Fatalf("production must not create a demo merchant: %d customers", n)
		}
	})
}

// followBannerNextSteps runs the banner's next steps as a newcomer would:
// the payment curl answers 201 with a checkout link that opens, and the
// inbox curl answers 200.
func followBannerNextSteps(t *testing.T, banner, token string) {
	t.Helper()
	m := regexp.MustCompile(`curl -s (\S+/payments) -H "Authorization: Bearer \$TOKEN" \\\n\s+-H 'Content-Type: application/json' -H 'X-Service-Initiation-Channel: hosted' -H 'X-Service-Api-Version: 1' \\\n\s+-d '([^']+)'`).FindStringSubmatch(banner)
	if m == nil {
		t.Fatalf("banner has no payment curl:\n%s", banner)
	}
	req, _ := http.NewRequest("POST", m[1], strings.NewReader(m[2]))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Service-Initiation-Channel", "hosted")
	req.Header.Set("X-Service-Api-Version", "1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var p struct {
		Flow struct {
			Details struct {
				Redirect struct {
					URL string `json:"url"`
				} `json:"redirect"`
			} `json:"details"`
		} `json:"paymentInitiationFlow"`
	}
	if err := json.Unmarshal(body, &p); err != nil || resp.StatusCode != 201 || p.Flow.Details.Redirect.URL == "" {
		t.Fatalf("banner payment curl: %d %s", resp.StatusCode, body)
	}
	page, err := http.Get(p.Flow.Details.Redirect.URL) // follows the short link to the checkout
	if err != nil {
		t.Fatal(err)
	}
	html, _ := io.ReadAll(page.Body)
	page.Body.Close()
	if page.StatusCode != 200 || !strings.Contains(page.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("checkout link: %d %s", page.StatusCode, html)
	}
	inbox := regexp.MustCompile(`curl -s (\S+/sandbox/inbox) -H "Authorization: Bearer \$TOKEN"`).FindStringSubmatch(banner)
	if inbox == nil {
		t.Fatalf("banner has no inbox curl:\n%s", banner)
	}
	req, _ = http.NewRequest("GET", inbox[1], nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("banner inbox curl: %d", resp.StatusCode)
	}
}

// A port that is taken fails the start before anything is written: no
// database is created, and the message says how to choose another address.
func TestServeOnATakenPortChangesNothing(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	dir := t.TempDir()
	code, _, errOut := runCmd(t, "serve", "--addr", taken.Addr().String(), "--data-dir", dir)
	if code != 1 || !strings.Contains(errOut, "--addr") || !strings.Contains(errOut, taken.Addr().String()) {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("a failed start wrote %v into the data directory", entries)
	}
}

// Every flag is checked before the port is bound or the database opened
// (issue 30, item 1): with the configured port taken, a bad flag still
// answers with its own error, and the data directory stays empty.
func TestServeChecksFlagsBeforeListening(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { taken.Close() }) // after the parallel subtests, which a defer is not
	for _, tt := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--mode", "staging"}, "--mode must be sandbox or production"},
		{[]string{"--log-level", "loud"}, "--log-level must be debug, info, warn or error"},
		{[]string{"--admin-addr", "nonsense"}, "--admin-addr must be host:port"},
		{[]string{"--ledger-verify-interval", "1ns"}, "--ledger-verify-interval must be at least"},
		{[]string{"--seed", "no-such-seed.yaml"}, "read seed file"},
		{[]string{"--replica-url", "postgres://127.0.0.1:1/replica"}, "--replica-url needs PostgreSQL (--database-url)"},
		{[]string{"--database-url", "postgres://127.0.0.1:1/db", "--replica-url", "mysql://x"}, "--replica-url must start with postgres://"},
		{[]string{"--database-url", "postgres://127.0.0.1:1/db", "--replica-url", "postgres://127.0.0.1:1/r", "--replica-max-lag", "1ms"}, "--replica-max-lag must be at least 100ms"},
	} {
		t.Run(strings.Join(tt.flags, " "), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := append([]string{"serve", "--addr", taken.Addr().String(), "--data-dir", dir}, tt.flags...)
			code, _, errOut := runCmd(t, args...)
			if code != 1 || !strings.Contains(errOut, tt.want) || strings.Contains(errOut, "cannot listen") {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit 1 and %q", code, errOut, tt.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("a refused start wrote %v into the data directory", entries)
			}
		})
	}
}
