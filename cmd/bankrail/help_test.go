package main

import (
	"strings"
	"testing"
)

// TestEverySubcommandHelpShowsItsOwnFlags: --help and -h of every command
// print that command's usage and flags on stdout and exit 0.
func TestEverySubcommandHelpShowsItsOwnFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		command []string
		want    []string // its usage line and its own flags
	}{
		{[]string{"serve"}, []string{"Usage: bankrail serve", "-addr", "-seed", "-database-url"}},
		{[]string{"migrate"}, []string{"Usage: bankrail migrate", "-database-url"}},
		{[]string{"keys", "rotate"}, []string{"Usage: bankrail keys rotate", "-database-url"}},
		{[]string{"serve"}, []string{"-statements-dir"}},
		{[]string{"statements", "import"}, []string{"Usage: bankrail statements import", "FILE...", "-data-dir", "-database-url", "-json"}},
		{[]string{"statements", "list"}, []string{"Usage: bankrail statements list", "-data-dir", "-json", "-limit"}},
		{[]string{"statements", "exceptions"}, []string{"Usage: bankrail statements exceptions", "-data-dir", "-status", "-json", "-limit"}},
		{[]string{"statements", "resolve"}, []string{"Usage: bankrail statements resolve", "-data-dir", "-id", "-note"}},
		{[]string{"banks", "check"}, []string{"Usage: bankrail banks check", "-banks"}},
	}
	flagsOf := map[string][]string{
		"customer create": {"-name", "-id", "-parent"}, "customer list": nil, "customer get": {"-id"},
		"application create": {"-customer", "-client-id", "-client-secret", "-notification-url", "-notification-secret"},
		"application list":   {"-customer"}, "application get": {"-client-id", "-show-secret"},
		"user create": {"-customer", "-username", "-password", "-password-stdin", "-role"},
		"user list":   {"-customer"}, "user get": {"-username"}, "user disable": {"-username"},
		"account create": {"-customer", "-currency", "-nickname", "-iban", "-id"},
		"account list":   {"-customer", "-currency"}, "account get": {"-id", "-iban"},
		"ledger verify": {"-json"},
		"jobs dead":     {"-json", "-limit"}, "jobs retry": {"-id"},
		"transfers export": {"-out"}, "transfers status": {"-json"},
	}
	for _, c := range adminCommands {
		name := c.noun + " " + c.verb
		if c.noun == "keys" {
			continue
		}
		own, ok := flagsOf[name]
		if !ok {
			t.Errorf("%s: add it to this table", name)
		}
		tests = append(tests, struct {
			command []string
			want    []string
		}{[]string{c.noun, c.verb}, append([]string{"Usage: bankrail " + name, "-data-dir"}, own...)})
	}
	for _, tt := range tests {
		for _, help := range []string{"--help", "-h"} {
			args := append(append([]string{}, tt.command...), help)
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, out, errOut := runCmd(t, args...)
				if code != 0 || errOut != "" {
					t.Fatalf("exit %d, stderr %q", code, errOut)
				}
				for _, w := range tt.want {
					if !strings.Contains(out, w) {
						t.Errorf("help does not show %q:\n%s", w, out)
					}
				}
			})
		}
	}
	// A noun alone lists its commands; with --help on stdout and 0.
	for _, noun := range []string{"customer", "application", "user", "keys", "account", "ledger", "jobs", "statements", "transfers"} {
		code, out, _ := runCmd(t, noun, "--help")
		if code != 0 || !strings.Contains(out, "bankrail "+noun+" ") {
			t.Errorf("%s --help: exit %d\n%s", noun, code, out)
		}
		code, _, errOut := runCmd(t, noun, "frobnicate")
		if code != 2 || !strings.Contains(errOut, "unknown command") || !strings.Contains(errOut, "bankrail "+noun+" ") {
			t.Errorf("%s frobnicate: exit %d\n%s", noun, code, errOut)
		}
	}
}

// TestRefusedPostgreSQLIsOneClearLine: a start against a PostgreSQL that is
// not there says so in one line, with the address and what to check.
func TestRefusedPostgreSQLIsOneClearLine(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t) // nothing listens there once freeAddr returns
	url := "postgres://postgres@" + addr + "/bankrail"
	for _, args := range [][]string{
		{"migrate", "--database-url", url},
		{"serve", "--addr", "127.0.0.1:0", "--database-url", url},
		{"customer", "list", "--database-url", url},
	} {
		t.Run(args[0], func(t *testing.T) {
			code, _, errOut := runCmd(t, args...)
			if code != 1 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if strings.Count(errOut, "\n") != 1 || strings.Count(errOut, "connection refused") != 1 {
				t.Errorf("want one line, got:\n%s", errOut)
			}
			for _, w := range []string{addr, "Is PostgreSQL running", "--database-url"} {
				if !strings.Contains(errOut, w) {
					t.Errorf("the message does not say %q:\n%s", w, errOut)
				}
			}
		})
	}
}
