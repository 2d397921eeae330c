package app_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/notify/dispatch"
	"github.com/bankrail/bankrail/internal/seed"
	"github.com/bankrail/bankrail/notification"
)

const (
	crashCustomer = "50000000-0000-4000-8000-000000000001"
	crashSecret   = "crash-notification-secret"
)

// TestHelperProcess is not a test: it is the bankrail child process of
// TestCrashLosesNoCommittedNotification. It starts internal/app on the
// database named by its environment, enqueues notifications one
// transaction each (without end when BANKRAIL_HELPER_ENQUEUE is 1), prints
// "committed <id>" after each commit, and serves until it is killed.
func TestHelperProcess(t *testing.T) {
	if os.Getenv("BANKRAIL_HELPER") != "1" {
		t.Skip("helper process only")
	}
	ctx := context.Background()
	cfg := config.Default()
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = os.Getenv("BANKRAIL_HELPER_DATA_DIR")
	cfg.DatabaseURL = os.Getenv("BANKRAIL_HELPER_DATABASE_URL")
	hp := identity.HashParams{Time: 1, Memory: 1024, Threads: 1}
	f := seed.File{Customers: []seed.Customer{{ID: crashCustomer, Name: "Crash Shop", Applications: []seed.Application{{
		ClientID: "crash-client", ClientSecret: "crash-client-secret",
		NotificationURL: os.Getenv("BANKRAIL_HELPER_RECEIVER"), NotificationSecret: crashSecret}}}}}
	a, err := app.New(ctx, cfg, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		app.Options{HashParams: &hp, Seed: &f, Dispatch: dispatch.Options{Timeout: time.Second, Lease: 2 * time.Second}})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	if err := a.Start(ctx); err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	fmt.Println("started")
	for i := 0; os.Getenv("BANKRAIL_HELPER_ENQUEUE") == "1"; i++ {
		m, err := notify.Gateway(notify.Target{CustomerID: crashCustomer, ClientID: "crash-client"}, notification.Gateway{
			Payment: fmt.Sprintf("pay-%d", i%25), Reference: strconv.Itoa(i), Amount: int64(i), Status: "PENDING", DetailedStatus: "BANK_REDIRECT"})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		ids, err := a.Store().EnqueueNotifications(ctx, a.Clock().Now(), m)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println("committed", ids[0])
	}
	select {} // serve until killed
}

// crashReceiver records the notification ids it has received.
type crashReceiver struct {
	*httptest.Server
	mu   sync.Mutex
	seen map[string]int
	hits int
}

func newCrashReceiver(t *testing.T) *crashReceiver {
	rc := &crashReceiver{seen: map[string]int{}}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := notification.Verify(crashSecret, r.Header, body); err != nil {
			t.Errorf("unverifiable notification: %v", err)
		}
		time.Sleep(5 * time.Millisecond) // keep deliveries in flight when the kill comes
		rc.mu.Lock()
		rc.seen[r.Header.Get(notification.HeaderNotificationID)]++
		rc.hits++
		rc.mu.Unlock()
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *crashReceiver) count() (distinct, hits int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.seen), rc.hits
}

// child is a running helper process.
type child struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when its output ends

	mu        sync.Mutex
	committed []string // ids whose commit it reported
}

// reported is a copy of the ids whose commit the child has reported.
func (c *child) reported() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.committed...)
}

// startChild starts a helper process on db delivering to receiver, which
// enqueues notifications until it is killed when enqueue is true.
func startChild(t *testing.T, db dbtest.DB, receiver string, enqueue bool) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "BANKRAIL_HELPER=1", "BANKRAIL_HELPER_DATA_DIR="+db.DataDir,
		"BANKRAIL_HELPER_DATABASE_URL="+db.DatabaseURL, "BANKRAIL_HELPER_RECEIVER="+receiver,
		"BANKRAIL_HELPER_ENQUEUE="+map[bool]string{true: "1"}[enqueue])
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, done: make(chan struct{})}
	started := make(chan struct{})
	go func() {
		defer close(c.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "started":
				close(started)
			case strings.HasPrefix(line, "committed "):
				c.mu.Lock()
				c.committed = append(c.committed, strings.TrimPrefix(line, "committed "))
				c.mu.Unlock()
			case strings.HasPrefix(line, "error"):
				t.Errorf("child: %s", line)
			}
		}
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	select {
	case <-started:
	case <-c.done:
		t.Fatal("the child process ended before it started")
	case <-time.After(2 * time.Minute): // a deadline, not a measure: a loaded machine migrates slowly
		t.Fatal("the child process did not start within 2 minutes")
	}
	return c
}

// TestCrashLosesNoCommittedNotification kills bankrail with SIGKILL while it
// is creating and delivering notifications, restarts it on the same
// database, and checks that every notification whose commit was reported is
// delivered at least once.
func TestCrashLosesNoCommittedNotification(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		if db.Engine == dbtest.Postgres {
			db.DataDir = t.TempDir()
		}
		rc := newCrashReceiver(t)
		// The child enqueues without end, so the kill always comes while it
		// is creating notifications, and after some were delivered.
		first := startChild(t, db, rc.URL, true)
		deadline := time.Now().Add(2 * time.Minute)
		for {
			if _, hits := rc.count(); len(first.reported()) >= 150 && hits >= 20 {
				break
			}
			if time.Now().After(deadline) {
				_, hits := rc.count()
				t.Fatalf("only %d commits and %d deliveries before the deadline", len(first.reported()), hits)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err := first.cmd.Process.Kill(); err != nil { // SIGKILL: no shutdown, leases left behind
			t.Fatal(err)
		}
		<-first.done
		committed := map[string]bool{}
		for _, id := range first.reported() {
			committed[id] = true
		}
		distinct, hits := rc.count()
		t.Logf("killed after %d commits reported; %d of them and others delivered (%d requests)", len(committed), distinct, hits)

		startChild(t, db, rc.URL, false)
		until := time.Now().Add(3 * time.Minute)
		for {
			rc.mu.Lock()
			missing := 0
			for id := range committed {
				if rc.seen[id] == 0 {
					missing++
				}
			}
			rc.mu.Unlock()
			if missing == 0 {
				break
			}
			if time.Now().After(until) {
				t.Fatalf("%d committed notifications were never delivered after the restart", missing)
			}
			time.Sleep(50 * time.Millisecond)
		}
		distinct, hits = rc.count()
		t.Logf("after the restart: %d distinct notifications delivered in %d requests; all %d reported commits delivered",
			distinct, hits, len(committed))
	})
}
