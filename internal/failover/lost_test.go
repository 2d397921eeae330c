package failover_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/bankrail/bankrail/client"
	"github.com/bankrail/bankrail/internal/pgcluster"
)

// TestLostDatabaseAnswers503 proves, through the HTTP API, that an instance
// whose database died answers 503 SERVICE_UNAVAILABLE with Retry-After
// (never 500) to reads (after trying again inside) and to creates, and
// that it serves again, without a restart, once the standby is promoted:
// the create retried under its Idempotency-Key is made once.
func TestLostDatabaseAnswers503(t *testing.T) {
	c := pgcluster.Start(t, pgcluster.Options{Synchronous: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.Exec(ctx, c.Primary(), `CREATE DATABASE bankrail`); err != nil {
		t.Fatal(err)
	}
	_, url := instance(t, c.URL("bankrail"), "")
	cl, tr, create := signedIn(t, ctx, url, "order-1")

	if err := c.Kill(c.Primary()); err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func() error{
		"GET /payments":  func() error { _, err := cl.ListPayments(ctx, nil); return err },
		"POST /payments": func() error { _, err := create(); return err },
	} {
		var e *client.Error
		if err := call(); !errors.As(err, &e) || e.StatusCode != http.StatusServiceUnavailable ||
			e.Code != "SERVICE_UNAVAILABLE" || e.RetryAfter <= 0 {
			t.Errorf("%s with the database dead: %v; want 503 SERVICE_UNAVAILABLE with Retry-After", name, err)
		}
	}

	if err := c.Promote(c.Standbys()[0]); err != nil {
		t.Fatal(err)
	}
	p, err := create()
	if err != nil {
		t.Fatalf("the create retried after the promotion: %v", err)
	}
	again, err := create()
	if err != nil || again.ID != p.ID {
		t.Fatalf("the create repeated under its key: %+v %v; want %s", again, err, p.ID)
	}
	page, err := cl.ListPayments(ctx, nil)
	if err != nil || page.TotalItems != 1 {
		t.Fatalf("payments after the failover: %+v %v; want the one", page, err)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.byStatus[http.StatusInternalServerError] > 0 {
		t.Errorf("answered 500 %d times: %s", tr.byStatus[http.StatusInternalServerError], tr.first500)
	}
}
