package failover_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
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
	proxy, url, ctx := behindAProxy(t)
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

// TestPartitionAnswersPages503WithinTheRequestTimeout: the HTML pages are
// under the request timeout too. Across a partition a signed-in dashboard
// page (its session is read from the database) and the payer's checkout
// page are answered 503 with Retry-After, an HTML page, within the
// request timeout (never a 500 or a 400, never a page that hangs, never a
// sign-in page for a session that could not be read); once the partition
// heals the checkout page is served again.
func TestPartitionAnswersPages503WithinTheRequestTimeout(t *testing.T) {
	t.Parallel()
	proxy, base, ctx := behindAProxy(t)
	_, _, create := signedIn(t, ctx, base, "order-pages")
	p, err := create()
	if err != nil || p.PaymentInitiationFlow.Details.Redirect == nil {
		t.Fatalf("create: %+v %v", p, err)
	}
	direct, err := url.Parse(p.PaymentInitiationFlow.Details.Redirect.DirectURL)
	if err != nil {
		t.Fatal(err)
	}
	checkoutPage := base + direct.RequestURI()
	page := func(path string) (*http.Response, string, error) {
		req, err := http.NewRequestWithContext(ctx, "GET", path, nil)
		if err != nil {
			return nil, "", err
		}
		req.Header.Set("Accept", "text/html")
		for _, name := range []string{"bankrail_dashboard", "__Host-bankrail_dashboard"} {
			req.AddCookie(&http.Cookie{Name: name, Value: "a-session-the-database-must-be-asked-about"})
		}
		cl := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := cl.Do(req)
		if err != nil {
			return nil, "", err
		}
		defer func() { _ = resp.Body.Close() }()
		b, err := io.ReadAll(resp.Body)
		return resp, string(b), err
	}
	if resp, body, err := page(checkoutPage); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the checkout page before the partition: %v %v %.200s", resp, err, body)
	}

	proxy.Hang()
	const bound = requestTimeout + 8*time.Second // the timeout, and slack for a loaded machine
	for _, path := range []string{base + "/dashboard/payments", checkoutPage} {
		start := time.Now()
		resp, body, err := page(path)
		took := time.Since(start)
		if err != nil {
			t.Fatalf("GET %s across the partition: %v", path, err)
		}
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
			!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("GET %s across the partition: %d Retry-After %q %s %.300s; want a 503 HTML page with Retry-After", path,
				resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("Content-Type"), body)
		}
		if took > bound {
			t.Errorf("GET %s across the partition took %s; want at most %s", path, took, bound)
		}
		t.Logf("GET %s across the partition: answered %d in %s", path, resp.StatusCode, took.Round(time.Millisecond))
	}

	proxy.Heal()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, body, err := page(checkoutPage)
		if err == nil && resp.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the checkout page after the partition healed: %v %v %.200s", resp, err, body)
		}
		time.Sleep(200 * time.Millisecond) // a browser's reload after Retry-After, not timing logic
	}
}

// requestTimeout is the partition tests' --request-timeout.
const requestTimeout = 2 * time.Second

// behindAProxy starts an instance on PostgreSQL reached through a
// dbtest.Proxy, with the request timeout above and a 1 s connect
// timeout, and gives the proxy, the instance's URL and a context bounded
// at 2 minutes for the test's requests.
func behindAProxy(t *testing.T) (*dbtest.Proxy, string, context.Context) {
	t.Helper()
	db := dbtest.New(t, dbtest.Postgres)
	proxy := dbtest.NewProxy(t, db.DatabaseURL)
	_, url := instanceWith(t, proxy.URL, "", func(c *config.Config) {
		c.RequestTimeout, c.DatabaseConnectTimeout = requestTimeout, time.Second
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return proxy, url, ctx
}
