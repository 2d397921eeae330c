package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The hand-driven connection reads fixed-length and chunked answers, one
// after the other on one connection, and the headers asked for.
func TestRawConn(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 10_000) // net/http chunks a body it cannot buffer whole
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("next-cursor", "c1")
		if r.URL.Path == "/big" {
			_, _ = w.Write([]byte(big))
			return
		}
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"id":"1"}`))
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	c, err := dialRaw(host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for range 3 {
		status, body, err := c.do(rawRequest(host, "POST", "/small", []byte("{}"), "Content-Type", "application/json"), deadline)
		if err != nil || status != 201 || string(body) != `{"id":"1"}` {
			t.Fatalf("small: %d %q %v", status, body, err)
		}
		status, body, hdr, err := c.doHeaders(rawRequest(host, "GET", "/big", nil), deadline, "Next-Cursor", "absent")
		if err != nil || status != 200 || string(body) != big || hdr[0] != "c1" || hdr[1] != "" {
			t.Fatalf("big: %d %d bytes %q %v", status, len(body), hdr, err)
		}
	}
}
