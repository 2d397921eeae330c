package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/dbtest"
)

func TestAccountCreate(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		storage := []string{"--data-dir", db.DataDir, "--database-url", db.DatabaseURL, "--mode", "production"}
		if db.Engine == dbtest.Postgres {
			storage[1] = t.TempDir()
		}
		const shop = "7c000000-0000-4000-8000-000000000002"
		if code, out, errOut := runCmd(t, append([]string{"customer", "create", "--name", "Acme", "--id", shop}, storage...)...); code != 0 {
			t.Fatalf("customer create: %d %s %s", code, out, errOut)
		}
		args := append([]string{"account", "create", "--customer", shop, "--currency", "GBP", "--nickname", "main"}, storage...)
		code, out, errOut := runCmd(t, args...)
		m := regexp.MustCompile(`account (\S+) created: GBP (GB\d\d\w+) for customer ` + shop).FindStringSubmatch(out)
		if code != 0 || m == nil {
			t.Fatalf("account create: %d %s %s", code, out, errOut)
		}
		if code, out, _ := runCmd(t, args...); code != 0 || !strings.Contains(out, "account "+m[1]+" unchanged: GBP "+m[2]) {
			t.Fatalf("the same command again: %d %s", code, out)
		}
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"--customer", shop, "--currency", "XXX"}, "--currency"},
			{[]string{"--customer", shop, "--currency", "EUR", "--iban", "DE00123"}, "--iban"},
			{[]string{"--customer", "7c000000-0000-4000-8000-0000000000ff", "--currency", "EUR"}, "--customer"},
		} {
			code, _, errOut := runCmd(t, append(append([]string{"account", "create"}, tc.args...), storage...)...)
			if code != 1 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("%v: exit %d %s", tc.args, code, errOut)
			}
		}
		if code, out, errOut := runCmd(t, "account", "create", "--help"); code != 0 || !strings.Contains(out+errOut, "bankrail account create --customer UUID --currency EUR") {
			t.Fatalf("help: %d %s %s", code, out, errOut)
		}
	})
}
