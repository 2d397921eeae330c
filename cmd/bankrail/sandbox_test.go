package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/apptest"
)

// The sandbox commands against a running instance: chaos shown and set,
// a snapshot written to a file, a reset, the snapshot restored.
func TestSandboxCommands(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	config := filepath.Join(t.TempDir(), "no-profiles.json") // none stored: the flags alone
	as := func(l apptest.Login, args ...string) []string {
		return append(args, "--config", config, "--url", env.URL, "--client-id", l.ClientID, "--client-secret", l.ClientSecret,
			"--username", l.Username, "--password", l.Password)
	}
	code, out, errOut := runCmd(t, as(apptest.Merchant, "sandbox", "chaos", "--duplicate", "25", "--seed", "9", "--json")...)
	var ch api.NotificationChaos
	if code != 0 || json.Unmarshal([]byte(out), &ch) != nil || ch.DuplicatePercent != 25 || ch.Seed != 9 || ch.ClientID != "shop-client" {
		t.Fatalf("chaos: %d %q %q", code, out, errOut)
	}
	if code, out, _ := runCmd(t, as(apptest.Merchant, "sandbox", "chaos")...); code != 0 || !strings.Contains(out, "duplicate 25%") {
		t.Fatalf("chaos shown: %d %q", code, out)
	}
	if code, _, errOut := runCmd(t, as(apptest.Merchant, "sandbox", "reset")...); code != 1 || !strings.Contains(errOut, "ACCESS_DENIED") {
		t.Fatalf("a MERCHANT resets: %d %q", code, errOut)
	}
	file := filepath.Join(t.TempDir(), "snap.jsonl")
	if code, out, errOut := runCmd(t, as(apptest.PSPAdmin, "sandbox", "snapshot", "--out", file)...); code != 0 || !strings.Contains(out, "wrote "+file) {
		t.Fatalf("snapshot: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := runCmd(t, as(apptest.PSPAdmin, "sandbox", "reset", "--scope", "instance")...); code != 1 || !strings.Contains(errOut, "ACCESS_DENIED") {
		t.Fatalf("a tenant's ADMIN resets the instance: %d %q", code, errOut)
	}
	if code, out, errOut := runCmd(t, as(apptest.PSPAdmin, "sandbox", "reset")...); code != 0 || !strings.Contains(out, "reset to the seed state (your customer tree)") {
		t.Fatalf("reset: %d %q %q", code, out, errOut)
	}
	if _, out, _ := runCmd(t, as(apptest.Merchant, "sandbox", "chaos", "--json")...); !strings.Contains(out, `"duplicatePercent": 0`) {
		t.Fatalf("chaos after reset: %s", out)
	}
	if code, out, errOut := runCmd(t, as(apptest.PSPAdmin, "sandbox", "restore", "--in", file, "--json")...); code != 0 || !strings.Contains(out, `"rows"`) {
		t.Fatalf("restore: %d %q %q", code, out, errOut)
	}
	if _, out, _ := runCmd(t, as(apptest.Merchant, "sandbox", "chaos", "--json")...); !strings.Contains(out, `"duplicatePercent": 25`) {
		t.Fatalf("chaos after restore: %s", out)
	}
	if b, err := os.ReadFile(file); err != nil || !strings.HasPrefix(string(b), `{"format":"bankrail-sandbox-snapshot"`) || !strings.Contains(string(b), `"scope":"TREE"`) {
		t.Fatalf("snapshot file: %v %.160s", err, b)
	}
	if code, out, errOut := runCmd(t, as(apptest.Operator, "sandbox", "reset")...); code != 0 || !strings.Contains(out, "reset to the seed state (the whole instance)") {
		t.Fatalf("the operator's reset: %d %q %q", code, out, errOut)
	}
}

func TestSandboxCommandsHelp(t *testing.T) {
	t.Parallel()
	for _, sc := range sandboxCommands {
		code, out, errOut := runCmd(t, "sandbox", sc.verb, "--help")
		if code != 0 || errOut != "" || !strings.Contains(out, "Usage: bankrail sandbox "+sc.verb) || !strings.Contains(out, "-url") {
			t.Errorf("%s --help: %d %q %q", sc.verb, code, out, errOut)
		}
	}
	if code, out, _ := runCmd(t, "sandbox", "--help"); code != 0 || !strings.Contains(out, "reset") {
		t.Fatalf("sandbox --help: %d %q", code, out)
	}
	if code, _, errOut := runCmd(t, "sandbox", "nope"); code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Fatalf("unknown: %d %q", code, errOut)
	}
}
