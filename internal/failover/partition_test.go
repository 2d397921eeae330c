package failover_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/client"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
)

// TestPartitionAnswers503WithinTheRequestTimeout: across a network
// partition the database's connections neither fail nor answer (a proxy
// that stops forwarding, the connections left open). Reads and creates
// are answered 503 SERVICE_UNAVAILABLE with Retry-After within the
// request timeout (never a 500, never a request that hangs); once the
// partition heals the instance serves again without a restart, and the
// create retried under its Idempotency-Key is made once.
func TestPartitionAnswers503WithinTheRequestTimeout(t *testing.T) {
	t.Parallel()
	const requestTimeout = 2 * time.Second
	db := dbtest.New(t, dbtest.Postgres)
	proxy := dbtest.NewProxy(t, db.DatabaseURL)
	_, url := instanceWith(t, proxy.URL, "", func(c *config.Config) {
		c.RequestTimeout, c.DatabaseConnectTimeout = requestTimeout, time.Second
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, tr, create := signedIn(t, ctx, url, "order-p")

	proxy.Hang()
	// The bound: the request timeout, the read's retries inside it, and
	// slack for a loaded machine; without one a request waits for ever.
	const bound = requestTimeout + 8*time.Second
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"GET /payments", func() error { _, err := cl.ListPayments(ctx, nil); return err }},
		{"POST /payments", func() error { _, err := create(); return err }},
	} {
		start := time.Now()
		err := c.call()
		took := time.Since(start)
		var e *client.Error
		if !errors.As(err, &e) || e.StatusCode != http.StatusServiceUnavailable || e.Code != "SERVICE_UNAVAILABLE" || e.RetryAfter <= 0 {
			t.Errorf("%s across the partition: %v; want 503 SERVICE_UNAVAILABLE with Retry-After", c.name, err)
		}
		if took > bound {
			t.Errorf("%s across the partition took %s; want at most %s", c.name, took, bound)
		}
		t.Logf("%s across the partition: answered %v in %s", c.name, e.StatusCode, took.Round(time.Millisecond))
	}

	proxy.Heal()
	var p *api.Payment
	var err error
	deadline := time.Now().Add(30 * time.Second)
	for p, err = create(); err != nil && time.Now().Before(deadline); p, err = create() {
		time.Sleep(200 * time.Millisecond) // a client's retry after Retry-After, not timing logic
	}
	if err != nil {
		t.Fatalf("the create after the partition healed: %v", err)
	}
	again, err := create()
	if err != nil || again.ID != p.ID {
		t.Fatalf("the create repeated under its key: %+v %v; want %s", again, err, p.ID)
	}
	page, err := cl.ListPayments(ctx, nil)
	if err != nil || page.TotalItems != 1 {
		t.Fatalf("payments after the partition: %+v %v; want the one", page, err)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.byStatus[http.StatusInternalServerError] > 0 {
		t.Errorf("answered 500 %d times: %s", tr.byStatus[http.StatusInternalServerError], tr.first500)
	}
}
