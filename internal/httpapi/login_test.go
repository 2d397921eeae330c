package httpapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/config"
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

// TestLoginLockIsPerApplication: failures through one application lock that
// application's attempts on the user, not the user's own application; the
// applications that may sign the user in share a higher ceiling (issue 11,
// item 2).
func TestLoginLockIsPerApplication(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		login := func(l apptest.Login) *apptest.Response {
			return env.Do(t, apptest.Request{Method: "POST", Path: "/oauth", Body: passwordBody(l)})
		}
		wrong := func(l apptest.Login, n int) {
			t.Helper()
			l.Password = "not-the-password"
			for range n {
				login(l).Error(t, http.StatusUnauthorized, "UNAUTHORISED")
			}
		}
		viaPSP := cred("psp-client", "psp-client-secret", apptest.Merchant.Username, apptest.Merchant.Password)
		foreign := cred("other-client", "other-client-secret", apptest.Merchant.Username, apptest.Merchant.Password)

		// A stranger's application locks only itself out.
		wrong(foreign, env.Config.LoginMaxFailures)
		login(foreign).Error(t, http.StatusTooManyRequests, "TOO_MANY_REQUESTS")
		env.Login(t, apptest.Merchant)

		// Foreign failures do not count towards the user's ceiling: 7 more
		// failures through the user's own applications stay below it.
		wrong(apptest.Merchant, 4)
		wrong(viaPSP, 3)
		env.Login(t, viaPSP) // a success clears the counts of its application and the ceiling
		env.Login(t, apptest.Merchant)

		// The applications that may sign the user in share the ceiling (8
		// here): 4 + 4 failures lock the user on both, although neither
		// application reached its own limit of 5.
		wrong(apptest.Merchant, 4)
		wrong(viaPSP, 4)
		login(apptest.Merchant).Error(t, http.StatusTooManyRequests, "TOO_MANY_REQUESTS")
		login(viaPSP).Error(t, http.StatusTooManyRequests, "TOO_MANY_REQUESTS")
		// The stranger's lock and the ceiling both follow the clock.
		env.Clock.Advance(env.Config.LoginFailureWindow + time.Second)
		env.Login(t, apptest.Merchant)
	}, func(c *config.Config) { c.LoginMaxFailuresUser = 8 })
}
