package store_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/store"
)

// logLines keeps what a logger wrote, for tests on the log.
type logLines struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// An idempotency claim whose connection is lost at its COMMIT (outside
// any unit of work: it is its own transaction) runs again inside the
// server and is claimed, instead of answering 503; a claim committed
// before its answer was lost is given back to its own token on the run
// after (not "in flight", which would be a 409 to the client whose own
// claim it is).
func TestIdempotencyClaimRunsAgainAfterALostConnection(t *testing.T) {
	t.Parallel()
	db := dbtest.Migrated(t, dbtest.Postgres)
	direct := open(t, db)
	ctx := context.Background()
	shop := identity.Customer{ID: "22000000-0000-4000-8000-000000000032", Name: "Shop", CreatedAt: t0}
	if err := direct.CreateCustomer(ctx, shop); err != nil {
		t.Fatal(err)
	}
	proxy := newCommitCutter(t, db.DatabaseURL)
	log := &logLines{}
	s, err := store.Open(ctx, store.Options{DatabaseURL: proxy.url}, slog.New(slog.NewTextHandler(log, nil)))
	if err != nil {
		t.Fatalf("open store through the proxy: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	c := idempotency.Claim{CustomerID: shop.ID, Key: "order-32", RequestHash: "h", Token: "tok-a", Now: t0,
		TTL: 24 * time.Hour, Lease: 30 * time.Second}

	proxy.arm()
	res, err := s.IdempotencyKeys().Claim(ctx, c)
	if !proxy.cut.Load() {
		t.Fatal("the proxy saw no COMMIT to cut")
	}
	if err != nil || res.Decision != idempotency.DecisionClaimed {
		t.Fatalf("a claim cut at its COMMIT: %+v %v; want claimed (run again inside the server)", res, err)
	}
	if !strings.Contains(log.String(), "idempotency claim lost its database connection; running it again") {
		t.Errorf("the claim was not run again: log %q", log.String())
	}

	// The claim above committed; its answer lost, it runs again and meets
	// its own token.
	res, err = s.IdempotencyKeys().Claim(ctx, c)
	if err != nil || res.Decision != idempotency.DecisionClaimed {
		t.Fatalf("a claim run again after its commit: %+v %v; want claimed (its own)", res, err)
	}
	other := c
	other.Token = "tok-b"
	if res, err := s.IdempotencyKeys().Claim(ctx, other); err != nil || res.Decision != idempotency.DecisionInFlight {
		t.Fatalf("another request's claim of the held key: %+v %v; want in flight", res, err)
	}
}
