package xs2a

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// The connector keeps its connections to a bank open between exchanges:
// 10 rounds of 8 concurrent requests open about 8 connections in all (a
// few more when a round starts before the last one's connections are back
// in the pool), where the default transport, keeping 2 idle per host,
// opens about 6 again every round (60 or more).
func TestLoopbackClientKeepsConnectionsAlive(t *testing.T) {
	t.Parallel()
	var opened atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{}`))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	c := Client{BaseURL: srv.URL, HTTP: LoopbackClient()}
	const parallel, rounds = 8, 10
	for range rounds {
		var wg sync.WaitGroup
		for range parallel {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := c.Status(t.Context(), ProductSEPA, "p1", "3f2c9a1e-7b0d-4c55-8e1a-0d5b9f6c2a11"); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
	}
	if n := opened.Load(); n > 2*parallel {
		t.Fatalf("%d connections opened for %d rounds of %d requests, want at most %d", n, rounds, parallel, 2*parallel)
	}
}
