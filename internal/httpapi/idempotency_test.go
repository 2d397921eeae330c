package httpapi_test

import (
	"bytes"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
)

func key(k string) map[string]string { return map[string]string{"Idempotency-Key": k} }

// totalPayments is the total-items of GET /payments for token.
func totalPayments(t testing.TB, env *apptest.Env, token string) string {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "GET", Path: "/payments?limit=1", Token: token})
	if resp.Status != http.StatusOK {
		t.Fatalf("list: %d %s", resp.Status, resp.Body)
	}
	return resp.Header.Get("total-items")
}

func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		shop := env.Token(t, apptest.Merchant)

		first := postPayment(t, env, shop, euBody(), key("order-1"))
		if first.Status != http.StatusCreated || first.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("first: %d %v", first.Status, first.Header)
		}
		// The same request, even formatted differently and with an unknown
		// field, replays the stored answer byte for byte.
		again := with(euBody(), "unknownField", 1)
		replay := postPayment(t, env, shop, again, key("order-1"))
		if replay.Status != http.StatusCreated || replay.Header.Get("Idempotent-Replayed") != "true" ||
			!bytes.Equal(replay.Body, first.Body) || replay.Header.Get("Location") != first.Header.Get("Location") {
			t.Fatalf("replay: %d %v\n%s\nvs\n%s", replay.Status, replay.Header, replay.Body, first.Body)
		}
		// A different request under the same key is refused.
		e := postPayment(t, env, shop, with(euBody(), "amount", 2000), key("order-1")).Error(t, http.StatusConflict, "IDEMPOTENCY_CONFLICT")
		if e.Message == "" {
			t.Fatal("no message")
		}
		// The channel is part of the request.
		postPayment(t, env, shop, euBody(), map[string]string{"Idempotency-Key": "order-1", channelHeader: "api"}).
			Error(t, http.StatusConflict, "IDEMPOTENCY_CONFLICT")
		// A failed validation stores nothing: the fixed request may use the key.
		postPayment(t, env, shop, with(euBody(), "amount", 0), key("order-2")).Error(t, 422, "VALIDATION_FAILURE")
		mustCreate(t, env, shop, euBody(), key("order-2"))
		if got := totalPayments(t, env, shop); got != "2" {
			t.Fatalf("%s payments, want 2", got)
		}
		// Keys belong to a customer: another merchant may use the same key.
		other := env.Token(t, apptest.OtherMerch)
		if rec := mustCreate(t, env, other, euBody(), key("order-1")); rec.ID == "" {
			t.Fatal("no id")
		}
		// After 24 hours the key is forgotten, following the clock.
		env.Clock.Advance(24*time.Hour - time.Second)
		postPayment(t, env, shop, with(euBody(), "amount", 2000), key("order-1")).Error(t, http.StatusConflict, "IDEMPOTENCY_CONFLICT")
		env.Clock.Advance(time.Second)
		shop = env.Token(t, apptest.Merchant) // the old token lived 24 hours too
		if rec := mustCreate(t, env, shop, with(euBody(), "amount", 2000), key("order-1")); rec.Amount != 2000 {
			t.Fatalf("reused key: %+v", rec)
		}
		if got := totalPayments(t, env, shop); got != "3" {
			t.Fatalf("%s payments, want 3", got)
		}
	})
}

func TestIdempotencyStrict(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, func(c *config.Config) { c.IdempotencyStrict = true; c.IdempotencyTTL = time.Hour })
	shop := env.Token(t, apptest.Merchant)
	mustCreate(t, env, shop, euBody(), key("k"))
	postPayment(t, env, shop, euBody(), key("k")).Error(t, http.StatusConflict, "IDEMPOTENCY_CONFLICT")
	env.Clock.Advance(time.Hour)
	mustCreate(t, env, shop, euBody(), key("k"))
}

// concurrentCreates sends n identical POST /payments with one key, spread
// over envs, and checks that exactly one payment was made: every answer is
// the 201 of that payment or an in-flight 409 with Retry-After.
func concurrentCreates(t *testing.T, envs []*apptest.Env, token string, n int) {
	t.Helper()
	resps := make([]*apptest.Response, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			resps[i] = postPayment(t, envs[i%len(envs)], token, euBody(), key("same-key"))
		}()
	}
	close(start)
	wg.Wait()
	ids := map[string]int{}
	created, replayed, inFlight := 0, 0, 0
	for _, r := range resps {
		switch r.Status {
		case http.StatusCreated:
			var rec record
			r.JSON(t, &rec)
			ids[rec.ID]++
			if r.Header.Get("Idempotent-Replayed") == "true" {
				replayed++
			} else {
				created++
			}
		case http.StatusConflict:
			r.Error(t, http.StatusConflict, "IDEMPOTENCY_CONFLICT")
			if r.Header.Get("Retry-After") != "1" {
				t.Errorf("in-flight conflict without Retry-After: %v", r.Header)
			}
			inFlight++
		default:
			t.Errorf("unexpected answer %d %s", r.Status, r.Body)
		}
	}
	if created != 1 || len(ids) != 1 {
		t.Fatalf("%d created (want 1), payment ids %v", created, ids)
	}
	t.Logf("%d requests: 1 created, %d replayed, %d in flight", n, replayed, inFlight)
	for _, env := range envs {
		if got := totalPayments(t, env, token); got != "1" {
			t.Fatalf("%s payments in the database, want 1", got)
		}
	}
}

func TestIdempotencyUnderConcurrency(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		concurrentCreates(t, []*apptest.Env{env}, env.Token(t, apptest.Merchant), 50)
	})
}

// Two instances on one PostgreSQL database agree on keys: the key lives in
// the database, not in a process.
func TestIdempotencyAcrossInstances(t *testing.T) {
	t.Parallel()
	db := dbtest.Migrated(t, dbtest.Postgres)
	a, b := apptest.NewOn(t, db), apptest.NewOn(t, db)
	token := a.Token(t, apptest.Merchant) // signing keys are shared: b accepts a's tokens
	concurrentCreates(t, []*apptest.Env{a, b}, token, 50)
}
