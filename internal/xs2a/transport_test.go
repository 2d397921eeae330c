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
// rounds of 8 concurrent requests open at most 8 connections in all (the
// default transport keeps 2 idle per host and opens most of them again
// every round).
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
	if n := opened.Load(); n > parallel {
		t.Fatalf("%d connections opened for %d rounds of %d requests, want at most %d", n, rounds, parallel, parallel)
	}
}
