package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// The chaos and rotation routes name no resource: they act on the caller's
// own application, named by its token. TestChaosIsPerApplication proves
// that one application's settings reach no other.
func init() {
	tenancyExempt["GET /sandbox/notification-chaos"] = "reads the chaos of the caller's own application (TestChaosIsPerApplication)"
	tenancyExempt["PUT /sandbox/notification-chaos"] = "sets the chaos of the caller's own application only (TestChaosIsPerApplication); READ_ONLY is refused (TestChaosSettingsValidation)"
	tenancyExempt["POST /notification-secret/rotate"] = "rotates the caller's own application's secret only (TestChaosIsPerApplication); READ_ONLY is refused (TestNotificationSecretRotation)"
	tenancyExempt["POST /sandbox/reset"] = "names no resource: the caller's own tree (ADMIN) or the instance (OPERATOR only); TestSandboxTreeTenancy, TestSandboxInstanceControlsNeedTheOperator"
	tenancyExempt["GET /sandbox/snapshot"] = "names no resource: the caller's own tree (ADMIN) or the instance (OPERATOR only); TestSandboxTreeTenancy, TestSandboxInstanceControlsNeedTheOperator"
	tenancyExempt["POST /sandbox/restore"] = "names no resource: the caller's own tree (ADMIN) or the instance (OPERATOR only); TestSandboxTreeTenancy, TestSandboxTreeRestoreStaysInTheTree"
}

// One application's chaos settings and rotation leave every other
// application's alone: another merchant's and the PSP's above it.
func TestChaosIsPerApplication(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		setChaos(t, env, token, map[string]any{"duplicatePercent": 50, "delayPercent": 20, "delaySeconds": 30, "seed": 3})
		resp := env.Do(t, apptest.Request{Method: "POST", Path: "/notification-secret/rotate", Token: token, Header: v1,
			Body: map[string]any{"overlapSeconds": 600}})
		if resp.Status != http.StatusOK {
			t.Fatalf("rotate: %d %s", resp.Status, resp.Body)
		}
		for _, l := range []apptest.Login{apptest.OtherMerch, apptest.PSPAdmin} {
			var c chaosJSON
			env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/notification-chaos", Token: env.Token(t, l), Header: v1}).JSON(t, &c)
			if c.ClientID != l.ClientID || c.DuplicatePercent != 0 || c.DelayPercent != 0 || c.Seed != 0 || c.PreviousSecretValidUntil != nil {
				t.Fatalf("%s sees %+v", l.ClientID, c)
			}
			app, err := env.App.Store().GetApplicationByClientID(t.Context(), l.ClientID)
			if err != nil || app.NotificationSecret != apptest.NotificationSecrets[l.ClientID] {
				t.Fatalf("%s's secret changed (%v)", l.ClientID, err)
			}
		}
	})
}
