package store_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/store"
)

// A group whose COMMIT was sent and whose answer never came may have
// committed: its units get the error and are not run again (running a
// refund's unit again would refund twice).
func TestGroupCommitDoesNotRunUnitsAgainWhenTheCommitsOutcomeIsUnknown(t *testing.T) {
	t.Parallel()
	db := dbtest.Migrated(t, dbtest.Postgres)
	direct := open(t, db)
	ctx := context.Background()
	shop := identity.Customer{ID: "22000000-0000-4000-8000-000000000003", Name: "Shop", CreatedAt: t0}
	if err := direct.CreateCustomer(ctx, shop); err != nil {
		t.Fatal(err)
	}

	proxy := newCommitCutter(t, db.DatabaseURL)
	s, err := store.Open(ctx, store.Options{DatabaseURL: proxy.url}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("open store through the proxy: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	obs := &commitLog{}
	s.ObserveCommits(obs)

	const n = 3
	var runs [n]atomic.Int32
	results := make([]error, n)
	id := func(i int) string { return fmt.Sprintf("45000000-0000-4000-8000-%012d", i) }
	release := s.HoldGroupWorkers(ctx)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			results[i] = s.InTx(ctx, func(tx *store.Tx) error {
				runs[i].Add(1)
				return tx.Payments().Create(ctx, testPayment(id(i), shop.ID, fmt.Sprintf("U%09d", i), t0))
			})
		})
	}
	waitFor(t, func() bool { return s.QueuedUnits() == n }, "the units to queue")
	proxy.arm()
	release()
	wg.Wait()

	if !proxy.cut.Load() {
		t.Fatal("the proxy saw no COMMIT to cut: the units did not run as one group")
	}
	obs.mu.Lock()
	if len(obs.unknown) != 1 || obs.unknown[0] != n || len(obs.committed) != 0 {
		t.Errorf("the observer was told of unknown commits %v and committed groups %v; want one unknown of %d units and none committed", obs.unknown, obs.committed, n)
	}
	obs.mu.Unlock()
	for i := range n {
		if results[i] == nil {
			t.Errorf("unit %d: no error; want the commit's error (its outcome is unknown)", i)
		}
		// Answered 503 with Retry-After: the client retries under its
		// Idempotency-Key and learns the outcome.
		var e *errs.Error
		if !errors.As(results[i], &e) || e.Code != errs.Unavailable || e.RetryAfter <= 0 || !strings.Contains(e.Message, "may or may not") {
			t.Errorf("unit %d: %v; want SERVICE_UNAVAILABLE with Retry-After saying the change may or may not have been made", i, results[i])
		}
		if got, want := runs[i].Load(), s.RunsOfEachUnit(); got != want {
			t.Errorf("unit %d ran %d times; want %d (not again after a commit of unknown outcome)", i, got, want)
		}
		// The proxy dropped the COMMIT: the server rolled the group back.
		if _, err := direct.Payments().Get(ctx, shop.ID, id(i)); !errs.Is(err, errs.NotFound) {
			t.Errorf("unit %d: reading its payment: %v; want not found", i, err)
		}
	}
}

// commitCutter is a TCP proxy to PostgreSQL that, once armed, closes the
// connection on which the client sends the COMMIT of a transaction that
// wrote (ran a statement) instead of passing it on: the client sent COMMIT
// and never learns its outcome. An empty transaction's COMMIT (the units
// that hold the group workers) passes. The COMMIT is a simple query
// (database/sql's), or one sent in a pipeline with the writes queued before
// it (internal/store/pipeline.go): the Bind of a statement parsed from
// COMMIT; the writes before it reached the server, the COMMIT not.
type commitCutter struct {
	url   string
	armed atomic.Bool
	cut   atomic.Bool
}

func newCommitCutter(t *testing.T, databaseURL string) *commitCutter {
	t.Helper()
	u, err := url.Parse(databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	if u.Hostname() == "" {
		t.Skipf("skipping: the proxy needs PostgreSQL on TCP, and %s names no host", u.Redacted())
	}
	target := u.Host
	if u.Port() == "" {
		target = net.JoinHostPort(u.Hostname(), "5432")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	u.Host = ln.Addr().String()
	q := u.Query()
	q.Set("sslmode", "disable") // the proxy reads the messages
	u.RawQuery = q.Encode()
	c := &commitCutter{url: u.String()}
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target)
			if err != nil {
				client.Close()
				continue
			}
			go func() { _, _ = io.Copy(client, server); client.Close() }()
			go c.forward(server, client)
		}
	}()
	return c
}

func (c *commitCutter) arm() { c.armed.Store(true) }

// forward passes the client's messages to the server one by one (the
// startup message, then messages of a type byte and a length), cutting
// both connections at the first COMMIT, once armed, after an Execute.
func (c *commitCutter) forward(server, client net.Conn) {
	defer server.Close()
	defer client.Close()
	r := bufio.NewReader(client)
	if _, err := readMessage(r, false, server); err != nil { // the startup message has no type byte
		return
	}
	wrote := false               // an Execute since the transaction's start
	commits := map[string]bool{} // statements parsed from COMMIT, by name
	for {
		msg, err := readMessage(r, true, nil)
		if err != nil {
			return
		}
		commit := false
		switch msg[0] {
		case 'E':
			wrote = true
		case 'Q':
			commit = bytes.Equal(msg[5:], []byte("commit\x00"))
		case 'P': // Parse: name, query, ...
			name, rest, _ := bytes.Cut(msg[5:], []byte{0})
			query, _, _ := bytes.Cut(rest, []byte{0})
			commits[string(name)] = bytes.EqualFold(bytes.TrimSpace(query), []byte("commit"))
		case 'B': // Bind: portal, statement
			_, rest, _ := bytes.Cut(msg[5:], []byte{0})
			name, _, _ := bytes.Cut(rest, []byte{0})
			commit = commits[string(name)]
		}
		if commit {
			if wrote && c.armed.CompareAndSwap(true, false) {
				c.cut.Store(true)
				return
			}
			wrote = false
		}
		if _, err := server.Write(msg); err != nil {
			return
		}
	}
}

// readMessage reads one protocol message (with its type byte when typed);
// with to set it also writes it there.
func readMessage(r *bufio.Reader, typed bool, to io.Writer) ([]byte, error) {
	head := 4
	if typed {
		head = 5
	}
	msg := make([]byte, head)
	if _, err := io.ReadFull(r, msg); err != nil {
		return nil, err
	}
	n := int(binary.BigEndian.Uint32(msg[head-4:]))
	msg = append(msg, make([]byte, n-4)...)
	if _, err := io.ReadFull(r, msg[head:]); err != nil {
		return nil, err
	}
	if to != nil {
		_, err := to.Write(msg)
		return msg, err
	}
	return msg, nil
}
