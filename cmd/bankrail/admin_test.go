package main

import (
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/dbtest"
)

// TestApplicationCreateRefusesInternalURLInProduction: the admin command
// goes through the same netguard check as the API and the seed file.
func TestApplicationCreateRefusesInternalURLInProduction(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		storage, _ := adminOn(t, db)
		const shop = "7b000000-0000-4000-8000-000000000003"
		if code, out, errOut := runCmd(t, append([]string{"customer", "create", "--name", "Guarded Shop", "--id", shop}, storage...)...); code != 0 {
			t.Fatalf("customer create: exit %d %s%s", code, out, errOut)
		}
		for _, u := range []string{"http://127.0.0.1:9000/n", "http://192.168.1.10/n", "http://169.254.169.254/latest"} {
			code, _, errOut := runCmd(t, append([]string{"application", "create", "--customer", shop, "--client-id", "guarded-client",
				"--notification-url", u}, storage...)...)
			if code != 1 || !strings.Contains(errOut, "loopback, private, link-local or metadata") {
				t.Errorf("%s: exit %d %s", u, code, errOut)
			}
		}
		if code, out, errOut := runCmd(t, append([]string{"application", "create", "--customer", shop, "--client-id", "guarded-client",
			"--notification-url", "https://203.0.113.10/hooks"}, storage...)...); code != 0 {
			t.Fatalf("a public address: exit %d %s%s", code, out, errOut)
		}
	})
}

// adminOn returns the storage flags of a production instance on db and a
// function that runs an administration command with them, failing the test
// unless it exits 0, and returns its output.
func adminOn(t *testing.T, db dbtest.DB) (storage []string, admin func(args ...string) string) {
	t.Helper()
	storage = append(storageOf(t, db), "--mode", "production")
	return storage, func(args ...string) string {
		t.Helper()
		code, out, errOut := runCmd(t, append(args, storage...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
		return out
	}
}
