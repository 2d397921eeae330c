package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/client"
	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/notification"
)

// verifyingReceiver is a merchant's local receiver: it verifies every
// request with the public notification package and the secret, answers
// 204 or 400, and keeps what verified.
type verifyingReceiver struct {
	*httptest.Server
	mu       sync.Mutex
	verified []notification.Notification
	refused  []error
}

func newVerifyingReceiver(t *testing.T, secret string) *verifyingReceiver {
	vr := &verifyingReceiver{}
	vr.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := notification.Verifier{Secret: secret, MaxAge: time.Minute}.Read(r)
		vr.mu.Lock()
		defer vr.mu.Unlock()
		if err != nil {
			vr.refused = append(vr.refused, err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		vr.verified = append(vr.verified, n)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(vr.Close)
	return vr
}

func (vr *verifyingReceiver) got() ([]notification.Notification, []error) {
	vr.mu.Lock()
	defer vr.mu.Unlock()
	return slices.Clone(vr.verified), slices.Clone(vr.refused)
}

// runTail starts `bankrail notifications tail` with args and waits until
// it follows the log; stop ends it and returns its output.
func runTail(t *testing.T, d devEnv, args ...string) (output func() string, stop func() string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"notifications", "tail", "--config", d.config, "--interval", "50ms"}, args...), &out, &errOut)
	}()
	apptest.Eventually(t, "tail following the log", func() bool {
		s := out.String()
		return strings.Contains(s, "Following the delivery log") || strings.Contains(s, `"event":"listening"`)
	})
	return out.String, func() string {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("tail exited %d: %s", code, errOut.String())
			}
		case <-time.After(10 * time.Second):
			t.Fatal("tail did not stop")
		}
		return out.String()
	}
}

// TestTailFollowsTheLogAndForwardsSignedNotifications: `notifications tail
// --forward-to` prints each new notification and its delivery attempts,
// and re-delivers each new notification, signed with the application's
// secret, to a local receiver that verifies it with the public package; the
// bodies are bankrail's exactly. Notifications from before the start are
// not forwarded.
func TestTailFollowsTheLogAndForwardsSignedNotifications(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		d := newDevEnv(t, env)
		ctx := t.Context()
		secret := apptest.NotificationSecrets["shop-client"]
		scenario := &api.CreatePaymentParams{XServiceTestingScenario: client.Ptr(api.SandboxOutcome("COMPLETED"))}
		before := mustSDK(d.sdk.CreatePayment(ctx, eurPayment(), scenario))
		apptest.Eventually(t, "the earlier payment's notifications delivered", func() bool { return len(d.rc.Got()) >= 3 })

		local := newVerifyingReceiver(t, secret)
		output, stop := runTail(t, d, "--forward-to", local.URL) // the secret is the profile's
		p := mustSDK(d.sdk.CreatePayment(ctx, eurPayment(), scenario))
		apptest.Eventually(t, "three notifications forwarded", func() bool { v, _ := local.got(); return len(v) >= 3 })
		deadline := time.Now().Add(10 * time.Second)
		for strings.Count(output(), "attempt 1 of") < 3 {
			if time.Now().After(deadline) {
				t.Fatalf("the attempts were not all printed:\n%s", output())
			}
			time.Sleep(20 * time.Millisecond)
		}
		out := stop()

		verified, refused := local.got()
		if len(refused) > 0 || len(verified) != 3 {
			t.Fatalf("forwarded: %d verified, refused %v", len(verified), refused)
		}
		var types []string
		for _, n := range verified {
			logged := mustSDK(d.sdk.GetNotification(ctx, n.ID))
			if string(logged.Body) != string(n.Raw) {
				t.Errorf("forwarded body %s, the log has %s", n.Raw, logged.Body)
			}
			switch {
			case n.Gateway != nil && n.Gateway.Payment == p.ID:
				types = append(types, "gateway/"+n.Gateway.Status)
			case n.Connect != nil && n.Connect.Payment == p.ID:
				types = append(types, n.Type+"/"+n.Connect.Status)
			default:
				t.Errorf("forwarded a notification of another payment (%s): %s", before.ID, n.Raw)
			}
		}
		// Each is forwarded once. The order is the log's within one poll; a notification
		// a poll missed comes with the next one (docs/cli.md), so only the set is fixed.
		slices.Sort(types)
		if strings.Join(types, " ") != "gateway/COMPLETED gateway/PENDING payment_received/RECEIVED" {
			t.Errorf("forwarded %v", types)
		}
		for _, n := range verified {
			for _, want := range []string{"notification " + n.ID, "attempt 1 of " + n.ID + "  delivered, HTTP 204", "forwarded " + n.ID + "  to " + local.URL + ": HTTP 204"} {
				if !strings.Contains(out, want) {
					t.Errorf("the output lacks %q:\n%s", want, out)
				}
			}
		}
		if strings.Contains(out, before.ID) {
			t.Errorf("the output shows the payment from before the start:\n%s", out)
		}
		if !regexp.MustCompile(`notification \S+  gateway payment ` + p.ID + ` PENDING`).MatchString(out) {
			t.Errorf("a notification line does not say what it is:\n%s", out)
		}
	})
}

// TestTailJSONAndRetriedAttempts: with --json every event is a JSON line;
// a notification whose delivery fails shows each new attempt as it
// happens; a receiver that does not know the secret refuses what is
// forwarded, and tail says so.
func TestTailJSONAndRetriedAttempts(t *testing.T) {
	t.Parallel()
	d := newDevEnv(t, apptest.New(t))
	ctx := t.Context()
	d.rc.Status(http.StatusServiceUnavailable) // the merchant's receiver is down
	wrong := newVerifyingReceiver(t, "not-the-secret")
	output, stop := runTail(t, d, "--json", "--forward-to", wrong.URL, "--secret", apptest.NotificationSecrets["shop-client"])
	test := mustSDK(d.sdk.SendTestNotification(ctx)) // one attempt, failed
	if test.Status != "FAILED" && test.Status != "PENDING" {
		t.Fatalf("test notification %s", test.Status)
	}
	p := mustSDK(d.sdk.CreatePayment(ctx, eurPayment(), &api.CreatePaymentParams{XServiceTestingScenario: client.Ptr(api.SandboxOutcome("COMPLETED"))}))
	apptest.Eventually(t, "the payment's first attempt", func() bool { return strings.Count(output(), `"event":"attempt"`) >= 2 })
	d.Clock.Advance(5 * time.Second) // the retry schedule: the next attempt 5 s later
	apptest.Eventually(t, "a retried attempt", func() bool { return strings.Contains(output(), `"number":2`) })
	out := stop()

	events := map[string]int{}
	attempts := map[string][]int64{}
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		var ev struct {
			Event          string
			NotificationID string
			ResponseStatus int
			Attempt        api.NotificationAttempt
			Notification   api.Notification
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		events[ev.Event]++
		switch ev.Event {
		case "attempt":
			attempts[ev.NotificationID] = append(attempts[ev.NotificationID], ev.Attempt.Number)
			if ev.Attempt.Success || ev.Attempt.ResponseStatus == nil || *ev.Attempt.ResponseStatus != 503 {
				t.Errorf("attempt %+v", ev.Attempt)
			}
		case "forward":
			if ev.ResponseStatus != http.StatusBadRequest {
				t.Errorf("a receiver with another secret answered %d", ev.ResponseStatus)
			}
		case "notification":
			if ev.Notification.ID == "" {
				t.Errorf("notification event without the notification: %s", line)
			}
		}
	}
	if events["listening"] != 1 || events["notification"] < 2 || events["forward"] != events["notification"] {
		t.Errorf("events %v", events)
	}
	if !slices.Equal(attempts[test.ID], []int64{1}) {
		t.Errorf("attempts of the test notification: %v", attempts[test.ID])
	}
	var paymentAttempts []int64
	for id, numbers := range attempts {
		if n := mustSDK(d.sdk.GetNotification(ctx, id)); n.PaymentID != nil && *n.PaymentID == p.ID {
			paymentAttempts = numbers
		}
	}
	if !slices.Equal(paymentAttempts, []int64{1, 2}) {
		t.Errorf("attempts of the payment's notification: %v (all %v)", paymentAttempts, attempts)
	}
	if _, refused := wrong.got(); len(refused) == 0 || !errors.Is(refused[0], notification.ErrBadSignature) {
		t.Errorf("the receiver with another secret: %v", refused)
	}
}

// TestTailNeedsTheSecretToForward: --forward-to without a secret (flag or
// profile) is refused before anything is followed.
func TestTailNeedsTheSecretToForward(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	config := t.TempDir() + "/profiles.json"
	if code, out, errOut := runCmd(t, loginArgs(env, apptest.Merchant, config)...); code != 0 {
		t.Fatalf("login: %s%s", out, errOut)
	}
	code, _, errOut := runCmd(t, "notifications", "tail", "--config", config, "--forward-to", "http://127.0.0.1:1/")
	if code != 1 || !strings.Contains(errOut, "--secret") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// eurPayment is a EUR payment expected on the merchant's Connect account.
func eurPayment() api.PaymentCreateRequest {
	return api.PaymentCreateRequest{Currency: "EUR", Amount: client.Ptr[int64](1050), PaymentSystem: api.PaymentSystemOPENBANKINGEU,
		OpenBankingEU: &api.OpenBankingEURequest{Type: client.Ptr(api.PaymentTypeGOODS)}}
}
