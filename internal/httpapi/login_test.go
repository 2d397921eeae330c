package httpapi_test

import (
	"net/http"
	"testing"

	"bankrail/internal/apptest"
)

// TestLoginFailuresLookAlike: every failed sign-in answers the same status,
// code and message whatever was wrong, so that an application cannot learn
// whether another customer's user exists or whether a password is right; and
// every one counts towards the throttle (issue 11, item 1).
func TestLoginFailuresLookAlike(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		foreignRight := cred("other-client", "other-client-secret", apptest.Merchant.Username, apptest.Merchant.Password)
		foreignWrong := cred("other-client", "other-client-secret", apptest.Merchant.Username, "not-the-password")
		cases := map[string]apptest.Login{
			"foreign application, right password": foreignRight,
			"foreign application, wrong password": foreignWrong,
			"own application, wrong password":     cred("psp-client", "psp-client-secret", apptest.PSPAdmin.Username, "not-the-password"),
			"unknown user":                        cred("other-client", "other-client-secret", "ghost@shop.test", "whatever"),
			"wrong client secret":                 cred("other-client", "not-the-secret", apptest.Merchant.Username, apptest.Merchant.Password),
			"unknown client":                      cred("ghost", "ghost-secret", apptest.Merchant.Username, apptest.Merchant.Password),
		}
		var want string
		for name, l := range cases {
			e := env.Do(t, apptest.Request{Method: "POST", Path: "/oauth", Body: passwordBody(l)}).
				Error(t, http.StatusUnauthorized, "UNAUTHORISED")
			if want == "" {
				want = e.Message
			}
			if e.Message != want {
				t.Fatalf("%s answers %q, others %q: the answer reveals what was wrong", name, e.Message, want)
			}
		}
		// The right password through a foreign application is a failure like
		// any other: it counts, and enough of them lock that attempt.
		viewer := cred("other-client", "other-client-secret", apptest.Viewer.Username, apptest.Viewer.Password)
		for range env.Config.LoginMaxFailures {
			env.Do(t, apptest.Request{Method: "POST", Path: "/oauth", Body: passwordBody(viewer)}).
				Error(t, http.StatusUnauthorized, "UNAUTHORISED")
		}
		env.Do(t, apptest.Request{Method: "POST", Path: "/oauth", Body: passwordBody(viewer)}).
			Error(t, http.StatusTooManyRequests, "TOO_MANY_REQUESTS")
	})
}
