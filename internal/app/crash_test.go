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
// database named by its environment, enqueues BANKRAIL_HELPER_COUNT
// notifications one transaction each, prints "committed <id>" after each
// commit, and serves until it is killed.
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
	n, _ := strconv.Atoi(os.Getenv("BANKRAIL_HELPER_COUNT"))
	for i := range n {
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
	cmd       *exec.Cmd
	committed chan string
	done      chan struct{}
}

func startChild(t *testing.T, db dbtest.DB, receiver string, count int) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "BANKRAIL_HELPER=1", "BANKRAIL_HELPER_DATA_DIR="+db.DataDir,
		"BANKRAIL_HELPER_DATABASE_URL="+db.DatabaseURL, "BANKRAIL_HELPER_RECEIVER="+receiver,
		"BANKRAIL_HELPER_COUNT="+strconv.Itoa(count))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, committed: make(chan string, count+1), done: make(chan struct{})}
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
				c.committed <- strings.TrimPrefix(line, "committed ")
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
	case <-time.After(30 * time.Second):
		t.Fatal("the child process did not start")
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
	dbtest.Each(t, func(t *testing.T, db dbtest.DB) {
		if db.Engine == dbtest.Postgres {
			db.DataDir = t.TempDir()
		}
		rc := newCrashReceiver(t)
		const total = 400
		first := startChild(t, db, rc.URL, total)
		committed := map[string]bool{}
		deadline := time.After(60 * time.Second)
		for {
			if _, hits := rc.count(); len(committed) >= 150 && hits >= 20 {
				break
			}
			select {
			case id := <-first.committed:
				committed[id] = true
			case <-deadline:
				t.Fatalf("only %d committed before the deadline", len(committed))
			}
		}
		if err := first.cmd.Process.Kill(); err != nil { // SIGKILL: no shutdown, leases left behind
			t.Fatal(err)
		}
		<-first.done
		close(first.committed)
		for id := range first.committed {
			committed[id] = true
		}
		distinct, hits := rc.count()
		t.Logf("killed after %d commits reported; %d of them and others delivered (%d requests)", len(committed), distinct, hits)
		if len(committed) == total {
			t.Fatal("the child finished before the kill: nothing was in flight")
		}

		startChild(t, db, rc.URL, 0)
		until := time.Now().Add(60 * time.Second)
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
