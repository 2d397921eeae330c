package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// scenarioHeader is the sandbox scenario header of POST /payments.
const scenarioHeader = "X-Service-Testing-Scenario"

// notifiedBody is a valid EU payment whose notifications go to rc.
func notifiedBody(rc *apptest.Receiver) map[string]any {
	b := euBody()
	b["communication"] = map[string]any{"notifications": map[string]any{"url": rc.URL + "/hook"}}
	return b
}

// gatewayNotes waits until the receiver got n gateway notifications of
// payment and returns them as "status/detailedStatus", verifying each
// signature with the public receiver helper.
func gatewayNotes(t *testing.T, rc *apptest.Receiver, payment string, n int) string {
	t.Helper()
	var notes []string
	apptest.Eventually(t, "notifications of "+payment, func() bool {
		notes = nil
		for _, r := range rc.Got() {
			if g := verify(t, r).Gateway; g != nil && g.Payment == payment {
				notes = append(notes, g.Status+"/"+g.DetailedStatus)
			}
		}
		return len(notes) >= n
	})
	return strings.Join(notes, " ")
}

// statusHistory is the status and the statusUpdates of a payment, as
// "NEW_PAYMENT BANK_REDIRECT ...".
func statusHistory(t *testing.T, env *apptest.Env, token, id string) (string, string) {
	t.Helper()
	d := getDetails(t, env, token, id)
	var hist []string
	for _, u := range d.StatusUpdates {
		hist = append(hist, u.NewStatus)
	}
	return d.Status, strings.Join(hist, " ")
}

// authorise calls POST /sandbox/payments/{id}/authorise.
func authorise(t *testing.T, env *apptest.Env, token, id string, body any) *apptest.Response {
	t.Helper()
	return env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/payments/" + id + "/authorise", Token: token, Body: body})
}

// mustAuthorise plays outcome on a payment and returns its record.
func mustAuthorise(t *testing.T, env *apptest.Env, token, id, outcome string) record {
	t.Helper()
	resp := authorise(t, env, token, id, map[string]string{"outcome": outcome})
	if resp.Status != http.StatusOK {
		t.Fatalf("authorise %s: %d %s", outcome, resp.Status, resp.Body)
	}
	var rec record
	resp.JSON(t, &rec)
	return rec
}

// splitFields splits s at spaces.
func splitFields(s string) []string { return strings.Fields(s) }
