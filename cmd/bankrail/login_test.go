package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// loginArgs are the arguments of `bankrail login` as l on env, storing the
// profile in config.
func loginArgs(env *apptest.Env, l apptest.Login, config string, extra ...string) []string {
	return append([]string{"login", "--url", env.URL, "--client-id", l.ClientID, "--client-secret", l.ClientSecret,
		"--username", l.Username, "--password", l.Password, "--config", config}, extra...)
}

// TestLoginStoresAProfileOnlyItsOwnerReads: login signs in, then stores
// the profile in a file of mode 0600 (its directory 0700) that the other
// commands use; a failed sign-in stores nothing; --profile keeps several,
// the last one stored being the default.
func TestLoginStoresAProfileOnlyItsOwnerReads(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	config := filepath.Join(t.TempDir(), "bankrail", "profiles.json")

	code, out, errOut := runCmd(t, loginArgs(env, apptest.Merchant, config, "--notification-secret", "shop-notification-secret")...)
	if code != 0 || !strings.Contains(out, "Signed in to "+env.URL+" as merchant@shop.test") || !strings.Contains(out, `Profile "default" stored`) {
		t.Fatalf("login: exit %d\n%s%s", code, out, errOut)
	}
	fi, err := os.Stat(config)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the profile file has mode %v, want 0600", fi.Mode().Perm())
	}
	if di, _ := os.Stat(filepath.Dir(config)); di.Mode().Perm() != 0o700 {
		t.Errorf("its directory has mode %v, want 0700", di.Mode().Perm())
	}
	f, err := loadProfiles(config)
	if err != nil {
		t.Fatal(err)
	}
	want := profile{URL: env.URL, ClientID: "shop-client", ClientSecret: "shop-client-secret", Username: "merchant@shop.test",
		Password: "shop-password", NotificationSecret: "shop-notification-secret"}
	if f.Current != "default" || f.Profiles["default"] != want {
		t.Fatalf("stored %+v", f)
	}

	// A wrong password: an error, and the file is unchanged.
	before, _ := os.ReadFile(config)
	bad := apptest.Merchant
	bad.Password = "wrong"
	code, _, errOut = runCmd(t, loginArgs(env, bad, config, "--profile", "bad")...)
	if after, _ := os.ReadFile(config); code != 1 || !strings.Contains(errOut, "UNAUTHORISED") || !strings.Contains(errOut, "Nothing was stored") || string(after) != string(before) {
		t.Fatalf("a wrong password: exit %d, %s", code, errOut)
	}

	// A second profile becomes the default; the first stays.
	code, out, errOut = runCmd(t, loginArgs(env, apptest.OtherMerch, config, "--profile", "other", "--json")...)
	var res map[string]string
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res["profile"] != "other" || res["username"] != "merchant@other.test" {
		t.Fatalf("login --json: exit %d\n%s%s", code, out, errOut)
	}
	for _, tc := range []struct{ profile, user string }{{"", "merchant@other.test"}, {"default", "merchant@shop.test"}} {
		c := connection{config: config, profile: tc.profile}
		p, err := c.resolve()
		if err != nil || p.Username != tc.user {
			t.Errorf("profile %q: %+v %v", tc.profile, p, err)
		}
	}
	if _, err := (&connection{config: config, profile: "nope"}).resolve(); err == nil || !strings.Contains(err.Error(), `no profile "nope"`) {
		t.Errorf("an unknown profile: %v", err)
	}
	// Flags override the profile's parts.
	c := connection{config: config, username: "viewer@shop.test"}
	if p, _ := c.resolve(); p.Username != "viewer@shop.test" || p.ClientID != "other-client" {
		t.Errorf("override: %+v", p)
	}
	// Without a profile file, the commands say what to do.
	_, err = (&connection{config: filepath.Join(t.TempDir(), "none.json")}).resolve()
	if err == nil || !strings.Contains(err.Error(), "bankrail login") {
		t.Errorf("no profile: %v", err)
	}
	// Incomplete flags are refused before any sign-in.
	code, _, errOut = runCmd(t, "login", "--url", env.URL, "--config", config, "--username", "x")
	if code != 2 || !strings.Contains(errOut, "missing --client-id, --client-secret, --password or --password-stdin") {
		t.Errorf("incomplete login: exit %d, %s", code, errOut)
	}
}

// TestMerchantDeveloperCommandsHaveHelp: --help and -h of login, trigger,
// notifications and notifications tail print their usage and flags.
func TestMerchantDeveloperCommandsHaveHelp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"login"}, []string{"Usage: bankrail login", "-client-id", "-password-stdin", "-notification-secret", "-demo", "-profile", "-config"}},
		{[]string{"trigger"}, []string{"Usage: bankrail trigger", "NOT_RECEIVED", "refund", "payout", "-amount", "-currency", "-scenario", "-json", "-url"}},
		{[]string{"notifications", "tail"}, []string{"Usage: bankrail notifications tail", "-forward-to", "-secret", "-interval", "-json", "-profile"}},
		{[]string{"notifications"}, []string{"Usage: bankrail notifications", "tail"}},
	} {
		for _, h := range []string{"--help", "-h"} {
			args := append(append([]string{}, tc.args...), h)
			code, out, errOut := runCmd(t, args...)
			if code != 0 || errOut != "" {
				t.Errorf("%v: exit %d, %s", args, code, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("%v does not show %q:\n%s", args, w, out)
				}
			}
		}
	}
	code, out, _ := runCmd(t, "help")
	for _, w := range []string{"login", "trigger", "notifications", "docs/cli.md"} {
		if code != 0 || !strings.Contains(out, w) {
			t.Errorf("bankrail help does not list %s", w)
		}
	}
	if code, _, errOut := runCmd(t, "notifications", "frobnicate"); code != 2 || !strings.Contains(errOut, `unknown command "notifications frobnicate"`) {
		t.Errorf("notifications frobnicate: exit %d, %s", code, errOut)
	}
}
