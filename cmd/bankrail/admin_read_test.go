package main

import (
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/dbtest"
)

// TestAdminListAndGetShowWhatWasCreated: list and get read back what the
// create commands made, filtered by customer, and never print a secret
// unless asked.
func TestAdminListAndGetShowWhatWasCreated(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		storage, admin := adminOn(t, db)
		const psp, shop, other = "7c000000-0000-4000-8000-000000000001", "7c000000-0000-4000-8000-000000000002", "7c000000-0000-4000-8000-000000000003"
		admin("customer", "create", "--name", "List PSP", "--id", psp)
		admin("customer", "create", "--name", "List Shop", "--id", shop, "--parent", psp)
		admin("customer", "create", "--name", "Other Shop", "--id", other)
		admin("application", "create", "--customer", shop, "--client-id", "list-client",
			"--notification-url", "https://203.0.113.10/hooks", "--notification-secret", "s3cret-notify-key")
		admin("application", "create", "--customer", other, "--client-id", "other-client")
		admin("user", "create", "--customer", shop, "--username", "ops@list.test", "--role", "READ_ONLY")
		admin("user", "create", "--customer", other, "--username", "else@other.test")
		admin("user", "disable", "--username", "else@other.test")

		lines := func(out string) []string { return strings.Split(strings.TrimSpace(out), "\n") }
		contains := func(what, out string, want ...string) {
			t.Helper()
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("%s does not show %q:\n%s", what, w, out)
				}
			}
		}

		out := admin("customer", "list")
		if n := len(lines(out)); n != 4 {
			t.Errorf("customer list: %d lines, want a header and 3 customers:\n%s", n, out)
		}
		contains("customer list", out, "ID", psp, shop, other, "List Shop", psp+"  ")

		out = admin("customer", "get", "--id", shop)
		contains("customer get", out, shop, "List Shop", psp, "list-client", "ops@list.test (READ_ONLY, active)")
		if strings.Contains(out, "other-client") || strings.Contains(out, "else@other.test") {
			t.Errorf("customer get shows another customer's records:\n%s", out)
		}

		out = admin("application", "list")
		contains("application list", out, "list-client", "other-client", "https://203.0.113.10/hooks")
		out = admin("application", "list", "--customer", shop)
		if len(lines(out)) != 2 || !strings.Contains(out, "list-client") {
			t.Errorf("application list --customer: want only list-client:\n%s", out)
		}
		out = admin("application", "get", "--client-id", "list-client")
		contains("application get", out, shop, "https://203.0.113.10/hooks")
		if strings.Contains(out, "s3cret-notify-key") {
			t.Errorf("application get prints the notification secret without --show-secret:\n%s", out)
		}
		contains("application get --show-secret", admin("application", "get", "--client-id", "list-client", "--show-secret"), "s3cret-notify-key")

		out = admin("user", "list")
		contains("user list", out, "ops@list.test", "READ_ONLY", "active", "else@other.test", "disabled 20")
		out = admin("user", "list", "--customer", other)
		if len(lines(out)) != 2 || !strings.Contains(out, "else@other.test") {
			t.Errorf("user list --customer: want only else@other.test:\n%s", out)
		}
		contains("user get", admin("user", "get", "--username", "ops@list.test"), shop, "READ_ONLY", "active")

		for _, args := range [][]string{
			{"customer", "get", "--id", "7c000000-0000-4000-8000-0000000000ff"},
			{"application", "get", "--client-id", "nobody"},
			{"user", "get", "--username", "nobody@list.test"},
		} {
			code, _, errOut := runCmd(t, append(args, storage...)...)
			if code != 1 || !strings.Contains(errOut, args[2]) || !strings.Contains(errOut, "not found") {
				t.Errorf("%v: exit %d %s", args, code, errOut)
			}
		}
	})
}
