package httpapi_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/inbox"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/notification"
)

// sandboxClock is the body of GET /sandbox/clock and of its changes.
type sandboxClock struct {
	Now              time.Time `json:"now"`
	OffsetSeconds    int64     `json:"offsetSeconds"`
	TenantID         string    `json:"tenantId"`
	MaxOffsetSeconds int64     `json:"maxOffsetSeconds"`
}

// readClock reads GET /sandbox/clock with token.
func readClock(t *testing.T, env *apptest.Env, token string) sandboxClock {
	t.Helper()
	return clockCall(t, env, apptest.Request{Method: "GET", Path: "/sandbox/clock", Token: token})
}

// advanceClock moves the clock of token's tenant by seconds.
func advanceClock(t *testing.T, env *apptest.Env, token string, seconds int64) sandboxClock {
	t.Helper()
	return clockCall(t, env, apptest.Request{Method: "POST", Path: "/sandbox/clock/advance", Token: token,
		Body: map[string]int64{"seconds": seconds}})
}

func clockCall(t *testing.T, env *apptest.Env, req apptest.Request) sandboxClock {
	t.Helper()
	resp := env.Do(t, req)
	if resp.Status != http.StatusOK {
		t.Fatalf("%s %s: %d %s", req.Method, req.Path, resp.Status, resp.Body)
	}
	var c sandboxClock
	resp.JSON(t, &c)
	return c
}

// otherNotes is gatewayNotes for the other tenant's application, whose
// notifications are signed with its own secret.
func otherNotes(t *testing.T, rc *apptest.Receiver, payment string, n int) string {
	t.Helper()
	var notes []string
	apptest.Eventually(t, "notifications of "+payment, func() bool {
		notes = nil
		for _, r := range rc.Got() {
			req := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewReader(r.Body))
			req.Header = r.Header
			got, err := notification.Verifier{Secret: apptest.NotificationSecrets[apptest.OtherMerch.ClientID]}.Read(req)
			if err != nil {
				t.Fatalf("notification of the other tenant: %v", err)
			}
			if g := got.Gateway; g != nil && g.Payment == payment {
				notes = append(notes, g.Status+"/"+g.DetailedStatus)
			}
		}
		return len(notes) >= n
	})
	return strings.Join(notes, " ")
}

// One tenant's advance moves only its own clock: its tokens expire and its
// payments are abandoned; another tenant's tokens keep working and its
// payments keep waiting (issue 11, item 5).
func TestSandboxClockIsPerTenant(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		a, b := env.Token(t, apptest.OtherMerch), env.Token(t, apptest.Merchant)
		rcA, rcB := apptest.NewReceiver(t), apptest.NewReceiver(t)
		payA := mustCreate(t, env, a, notifiedBody(rcA), nil)
		payB := mustCreate(t, env, b, notifiedBody(rcB), nil)

		moved := advanceClock(t, env, a, 86401)
		if moved.OffsetSeconds != 86401 || moved.TenantID != apptest.OtherShopID ||
			!moved.Now.Equal(env.Clock.Now().Add(86401*time.Second)) {
			t.Fatalf("after the advance: %+v", moved)
		}
		if got := otherNotes(t, rcA, payA.ID, 1); got != "FAILED/ABANDONED_BY_USER" {
			t.Fatalf("A's payment: %s", got)
		}
		env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/clock", Token: a}).Error(t, http.StatusUnauthorized, "UNAUTHORISED")

		// B: same token, same payment, its clock where it was.
		if st, hist := statusHistory(t, env, b, payB.ID); st != "NEW_PAYMENT" {
			t.Fatalf("B's payment moved with A's clock: %s (%s)", st, hist)
		}
		rcB.Quiet(t, 0)
		c := readClock(t, env, b)
		if c.OffsetSeconds != 0 || c.TenantID != apptest.PSPID || !c.Now.Equal(env.Clock.Now()) {
			t.Fatalf("B's clock: %+v", c)
		}
		// B's own time rules still run on B's clock.
		advanceClock(t, env, b, int64(payment.AbandonAfter/time.Second))
		if got := gatewayNotes(t, rcB, payB.ID, 1); got != "FAILED/ABANDONED_BY_USER" {
			t.Fatalf("B's payment after B's advance: %s", got)
		}
	})
}

// A PSP and its merchants share one clock: the PSP's advance is the
// merchant's, and the merchant's is the PSP's; another tenant's is not.
func TestSandboxClockIsSharedByACustomerTree(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		psp, shop, other := env.Token(t, apptest.PSPAdmin), env.Token(t, apptest.Merchant), env.Token(t, apptest.OtherMerch)
		advanceClock(t, env, psp, 3600)
		if c := readClock(t, env, shop); c.OffsetSeconds != 3600 || c.TenantID != apptest.PSPID {
			t.Fatalf("the merchant's clock after the PSP's advance: %+v", c)
		}
		if c := advanceClock(t, env, shop, 60); c.OffsetSeconds != 3660 || c.TenantID != apptest.PSPID {
			t.Fatalf("the merchant's advance: %+v", c)
		}
		if c := readClock(t, env, psp); c.OffsetSeconds != 3660 {
			t.Fatalf("the PSP's clock after its merchant's advance: %+v", c)
		}
		if c := readClock(t, env, other); c.OffsetSeconds != 0 || c.TenantID != apptest.OtherShopID {
			t.Fatalf("another tenant's clock: %+v", c)
		}
	})
}

// The offset is bounded (10 years in total): an advance past the bound is
// refused with a field error that says how much is left and changes
// nothing; up to the bound it is accepted.
func TestSandboxClockOffsetIsBounded(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		const left = 10
		if _, err := env.App.Store().TenantClocks().AdvanceTenantClock(context.Background(), apptest.OtherShopID,
			clock.MaxOffset-left*time.Second, clock.MaxOffset); err != nil {
			t.Fatal(err)
		}
		token := env.Token(t, apptest.OtherMerch)
		maxSeconds := int64(clock.MaxOffset / time.Second)
		if c := readClock(t, env, token); c.OffsetSeconds != maxSeconds-left || c.MaxOffsetSeconds != maxSeconds {
			t.Fatalf("clock near the bound: %+v", c)
		}
		e := env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/clock/advance", Token: token,
			Body: map[string]int{"seconds": left + 1}}).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		if len(e.Errors) != 1 || e.Errors[0].PropertyPath != "seconds" || e.Errors[0].Type != "TOO_HIGH" ||
			!strings.Contains(e.Errors[0].Message, "at most 10:") || !strings.Contains(e.Errors[0].Message, "/sandbox/clock/reset") {
			t.Fatalf("refusal: %+v", e)
		}
		if c := readClock(t, env, token); c.OffsetSeconds != maxSeconds-left {
			t.Fatalf("a refused advance moved the clock: %+v", c)
		}
		if c := advanceClock(t, env, token, left); c.OffsetSeconds != maxSeconds {
			t.Fatalf("advance up to the bound: %+v", c)
		}
		// The per-call bound is still checked first.
		e = env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/clock/advance", Token: token,
			Body: map[string]int64{"seconds": int64(clock.MaxAdvance/time.Second) + 1}}).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		if len(e.Errors) != 1 || !strings.Contains(e.Errors[0].Message, "per call") {
			t.Fatalf("per-call bound: %+v", e)
		}
	})
}

// A reset brings the tenant's clock back to the wall clock (the fake base
// here); tokens issued while it was ahead are not valid yet, older ones
// still are; another tenant's clock does not move.
func TestSandboxClockReset(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		before, psp := env.Token(t, apptest.OtherMerch), env.Token(t, apptest.PSPAdmin)
		advanceClock(t, env, before, 3600)
		advanceClock(t, env, psp, 120)
		ahead := env.Token(t, apptest.OtherMerch)
		reset := clockCall(t, env, apptest.Request{Method: "POST", Path: "/sandbox/clock/reset", Token: ahead})
		if reset.OffsetSeconds != 0 || !reset.Now.Equal(env.Clock.Now()) || reset.TenantID != apptest.OtherShopID {
			t.Fatalf("after the reset: %+v", reset)
		}
		if c := readClock(t, env, before); c.OffsetSeconds != 0 || !c.Now.Equal(env.Clock.Now()) {
			t.Fatalf("read after the reset: %+v", c)
		}
		env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/clock", Token: ahead}).Error(t, http.StatusUnauthorized, "UNAUTHORISED")
		if c := readClock(t, env, psp); c.OffsetSeconds != 120 {
			t.Fatalf("another tenant's clock after the reset: %+v", c)
		}
		viewer := env.Token(t, apptest.Viewer)
		env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/clock/reset", Token: viewer}).Error(t, http.StatusForbidden, "ACCESS_DENIED")
	})
}

// Two instances on one database agree on each tenant's clock: an instance
// that never read it sees another's advance at once, one that read it
// within clock.OffsetTTL (the cache) after at most that; a token issued
// just after an advance on one instance works on the other at once; a
// timed move follows the tenant's clock on both.
func TestSandboxClockAcrossInstances(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		a, b := apptest.NewOn(t, db), apptest.NewOn(t, db)
		other := a.Token(t, apptest.OtherMerch)
		shop := b.Token(t, apptest.Merchant)
		if c := readClock(t, b, other); c.OffsetSeconds != 0 { // b caches the offset
			t.Fatalf("b before: %+v", c)
		}
		rc := apptest.NewReceiver(t)
		pay := mustCreate(t, b, other, notifiedBody(rc), nil)

		advanceClock(t, a, other, int64(payment.AbandonAfter/time.Second))
		fresh := a.Token(t, apptest.OtherMerch) // issued on a's clock, 30 minutes ahead
		if c := readClock(t, b, fresh); c.OffsetSeconds != int64(payment.AbandonAfter/time.Second) {
			t.Fatalf("b with a token from a's future: %+v", c)
		}
		if got := otherNotes(t, rc, pay.ID, 1); got != "FAILED/ABANDONED_BY_USER" {
			t.Fatalf("the payment after the advance on a: %s", got)
		}
		if c := readClock(t, b, shop); c.OffsetSeconds != 0 || c.TenantID != apptest.PSPID {
			t.Fatalf("another tenant on b: %+v", c)
		}

		clockCall(t, a, apptest.Request{Method: "POST", Path: "/sandbox/clock/reset", Token: fresh})
		b.Clock.Advance(clock.OffsetTTL)
		a.Clock.Advance(clock.OffsetTTL)
		if c := readClock(t, b, other); c.OffsetSeconds != 0 || !c.Now.Equal(b.Clock.Now()) {
			t.Fatalf("b after a's reset and the cache time: %+v", c)
		}
	})
}

// Idempotency-Keys expire on their customer's tenant's clock: after A's
// advance past the TTL, A's key makes a new payment while B's key, stored
// at the same moment, still replays.
func TestIdempotencyKeysExpireOnTheirTenantsClock(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		a, b := env.Token(t, apptest.OtherMerch), env.Token(t, apptest.Merchant)
		firstA := mustCreate(t, env, a, euBody(), key("order-ttl"))
		firstB := mustCreate(t, env, b, euBody(), key("order-ttl"))
		advanceClock(t, env, a, int64(env.Config.IdempotencyTTL/time.Second)+1)
		a = env.Token(t, apptest.OtherMerch) // the old token expired with A's clock
		if again := mustCreate(t, env, a, euBody(), key("order-ttl")); again.ID == firstA.ID {
			t.Fatal("A's key did not expire with A's clock")
		}
		replay := postPayment(t, env, b, euBody(), key("order-ttl"))
		var got record
		replay.JSON(t, &got)
		if replay.Status != http.StatusCreated || replay.Header.Get("Idempotent-Replayed") != "true" || got.ID != firstB.ID {
			t.Fatalf("B's key after A's advance: %d %v %s", replay.Status, replay.Header, replay.Body)
		}
	})
}

// The sandbox inbox records arrival on the receiving application's
// tenant's clock.
func TestSandboxInboxFollowsTheTenantsClock(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		shop, other := env.Token(t, apptest.Merchant), env.Token(t, apptest.OtherMerch)
		advanceClock(t, env, shop, 3600)
		for _, client := range []string{apptest.Merchant.ClientID, apptest.OtherMerch.ClientID} {
			env.Do(t, apptest.Request{Method: "POST", Path: inbox.Path(client), Body: `{"payment":"x"}`,
				Header: map[string]string{"X-Service-Timed": "20260601090000", "X-Service-Signed": "00"}}).Error(t, 400, "BAD_REQUEST")
		}
		for token, want := range map[string]time.Time{shop: env.Clock.Now().Add(time.Hour), other: env.Clock.Now()} {
			resp := env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/inbox", Token: token})
			var items []struct {
				ReceivedAt time.Time `json:"receivedAt"`
			}
			resp.JSON(t, &items)
			if len(items) != 1 || !items[0].ReceivedAt.Equal(want) {
				t.Fatalf("inbox entries %s, want one received at %s", resp.Body, want)
			}
		}
	})
}
