package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/client"
	"github.com/bankrail/bankrail/internal/seed"
)

// The sandbox commands call a running instance through the SDK (client/),
// signed in with the stored profile (bankrail login), flags on top, or the
// default sandbox's demo merchant when no profile is stored.

const sandboxUsage = `Usage: bankrail sandbox <command> [flags]

Commands against a running sandbox (the profile of 'bankrail login'; without one,
http://127.0.0.1:8080 as the demo merchant):
  reset      put your customer tree (role ADMIN) or, --scope INSTANCE, the whole
             instance (role OPERATOR) back to its seed state
  snapshot   download your customer tree's (or the instance's) state to a file
  restore    replace your customer tree's (or the instance's) state with a snapshot file
  chaos      show or set the webhook chaos of your application

Each has --help. Docs: docs/testing-your-integration.md.
`

// sandboxCommands are the sandbox subcommands: their synopsis, what they do
// and how they run.
var sandboxCommands = []struct {
	verb, synopsis, about string
	bind                  func(fs *flag.FlagSet) func(ctx context.Context, c *sandboxClient, out io.Writer) error
}{
	{"reset", "[--scope TREE|INSTANCE] [--url URL] [credentials]", "Puts your customer tree's data (role ADMIN: your customer and those below it; users, applications,\nthe audit log and the clock stay) back to its seed state; with --scope INSTANCE (role OPERATOR, the\ninstance's operator) every table as right after the first start seeded it and every sandbox clock\nback to the wall clock, for every customer of the instance.",
		func(fs *flag.FlagSet) func(context.Context, *sandboxClient, io.Writer) error {
			scope := scopeFlag(fs)
			return func(ctx context.Context, c *sandboxClient, out io.Writer) error {
				st, err := c.sdk.ResetSandbox(ctx, &api.ResetSandboxParams{Scope: scope()})
				if err != nil {
					return err
				}
				return c.print(out, st, "reset to the seed state (%s): %d tables, %d rows (schema version %d)\n", scopeName(st.Scope), st.Tables, st.Rows, st.SchemaVersion)
			}
		}},
	{"snapshot", "[--scope TREE|INSTANCE] [--out FILE] [--url URL] [credentials]", "Downloads your customer tree's data (role ADMIN; never users, applications, secrets or password\nhashes) or, with --scope INSTANCE (role OPERATOR), every table of the instance (but the token signing\nkeys) to FILE (standard output with -).",
		func(fs *flag.FlagSet) func(context.Context, *sandboxClient, io.Writer) error {
			file := fs.String("out", "bankrail-sandbox.snapshot.jsonl", "file to write, - for standard output")
			scope := scopeFlag(fs)
			return func(ctx context.Context, c *sandboxClient, out io.Writer) error {
				snap, err := c.sdk.GetSandboxSnapshot(ctx, &api.GetSandboxSnapshotParams{Scope: scope()})
				if err != nil {
					return err
				}
				defer snap.Close()
				var buf bytes.Buffer
				if _, err := buf.ReadFrom(snap); err != nil {
					return fmt.Errorf("read the snapshot: %w", err)
				}
				if !bytes.Contains(buf.Bytes()[max(0, buf.Len()-200):], []byte(`"end":true`)) {
					return errors.New("the snapshot was cut short; the server log says why")
				}
				if *file == "-" {
					_, err := out.Write(buf.Bytes())
					return err
				}
				if err := os.WriteFile(*file, buf.Bytes(), 0o600); err != nil {
					return err
				}
				return c.print(out, map[string]any{"file": *file, "bytes": buf.Len()}, "wrote %s (%d bytes)\n", *file, buf.Len())
			}
		}},
	{"restore", "[--scope TREE|INSTANCE] [--in FILE] [--url URL] [credentials]", "Replaces your customer tree's data (role ADMIN) or, with --scope INSTANCE (role OPERATOR), the whole\nsandbox state with a snapshot file of the same scope and schema version (standard input with -).",
		func(fs *flag.FlagSet) func(context.Context, *sandboxClient, io.Writer) error {
			file := fs.String("in", "bankrail-sandbox.snapshot.jsonl", "snapshot file to send, - for standard input")
			scope := scopeFlag(fs)
			return func(ctx context.Context, c *sandboxClient, out io.Writer) error {
				var body []byte
				var err error
				if *file == "-" {
					body, err = io.ReadAll(os.Stdin)
				} else {
					body, err = os.ReadFile(*file)
				}
				if err != nil {
					return err
				}
				st, err := c.sdk.RestoreSandbox(ctx, body, &api.RestoreSandboxParams{Scope: scope()})
				if err != nil {
					return err
				}
				return c.print(out, st, "restored (%s) %d tables, %d rows (schema version %d)\n", scopeName(st.Scope), st.Tables, st.Rows, st.SchemaVersion)
			}
		}},
	{"chaos", "[--duplicate N] [--delay N --delay-seconds S] [--reorder N] [--completed-after-received N] [--seed N] [--off]",
		"Shows the webhook chaos of your application; with a setting flag, replaces them all (a flag left out is 0).\nPercentages: the share of notifications picked, a choice seeded by --seed and the notification id.",
		func(fs *flag.FlagSet) func(context.Context, *sandboxClient, io.Writer) error {
			dup := fs.Int("duplicate", 0, "percent of notifications delivered twice")
			delay := fs.Int("delay", 0, "percent of notifications whose first attempt waits --delay-seconds (sandbox clock)")
			delaySeconds := fs.Int64("delay-seconds", 0, "how long a delayed notification waits")
			reorder := fs.Int("reorder", 0, "percent held until a later notification of another payment is delivered")
			rule1 := fs.Int("completed-after-received", 0, "percent of COMPLETED notifications sent after payment_received (rule 1)")
			seedFlag := fs.Int64("seed", 0, "seed of the choices")
			off := fs.Bool("off", false, "turn every behaviour off")
			return func(ctx context.Context, c *sandboxClient, out io.Writer) error {
				set := *off
				fs.Visit(func(f *flag.Flag) {
					switch f.Name {
					case "duplicate", "delay", "delay-seconds", "reorder", "completed-after-received", "seed":
						set = true
					}
				})
				var ch *api.NotificationChaos
				var err error
				switch {
				case *off:
					ch, err = c.sdk.SetNotificationChaos(ctx, api.NotificationChaosSettings{})
				case set:
					ch, err = c.sdk.SetNotificationChaos(ctx, api.NotificationChaosSettings{DuplicatePercent: client.Ptr(int64(*dup)),
						DelayPercent: client.Ptr(int64(*delay)), DelaySeconds: client.Ptr(*delaySeconds), ReorderPercent: client.Ptr(int64(*reorder)),
						CompletedAfterReceivedPercent: client.Ptr(int64(*rule1)), Seed: client.Ptr(*seedFlag)})
				default:
					ch, err = c.sdk.GetNotificationChaos(ctx)
				}
				if err != nil {
					return err
				}
				return c.print(out, ch, "chaos of %s: duplicate %d%%, delay %d%% (%ds), reorder %d%%, completed after received %d%%, seed %d\n",
					ch.ClientID, ch.DuplicatePercent, ch.DelayPercent, ch.DelaySeconds, ch.ReorderPercent, ch.CompletedAfterReceivedPercent, ch.Seed)
			}
		}},
}

// sandboxCmd runs "bankrail sandbox <verb>".
func sandboxCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || isHelp(args[0]) {
		w := stderr
		if len(args) > 0 {
			w = stdout
		}
		fmt.Fprint(w, sandboxUsage)
		return map[bool]int{true: 0, false: 2}[len(args) > 0]
	}
	for _, sc := range sandboxCommands {
		if sc.verb != args[0] {
			continue
		}
		fs := newFlagSet("sandbox "+sc.verb, fmt.Sprintf("Usage: bankrail sandbox %s %s\n\n%s\n", sc.verb, sc.synopsis, sc.about))
		var conn connection
		conn.bind(fs)
		conn.fallback = &profile{URL: "http://127.0.0.1:8080", ClientID: seed.DemoClientID, ClientSecret: seed.DemoClientSecret,
			Username: seed.DemoUsername, Password: seed.DemoPassword}
		c := &sandboxClient{}
		fs.BoolVar(&c.json, "json", false, "print the answer as JSON")
		run := sc.bind(fs)
		if err := parse(fs, args[1:]); err != nil {
			return exitCode(fs, err, stdout, stderr)
		}
		p, err := conn.resolve()
		if err == nil {
			c.sdk, err = profileClient(p)
		}
		if err == nil {
			err = run(ctx, c, stdout)
		}
		if err != nil {
			fmt.Fprintln(stderr, "bankrail:", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stderr, "bankrail: unknown command %q\n\n%s", "sandbox "+args[0], sandboxUsage)
	return 2
}

// sandboxClient is what a sandbox command runs with: the SDK's client and
// how to print.
type sandboxClient struct {
	sdk  *client.Client
	json bool
}

// print writes v as JSON with --json, else the line for a person.
func (c *sandboxClient) print(out io.Writer, v any, format string, args ...any) error {
	if c.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	_, err := fmt.Fprintf(out, format, args...)
	return err
}

// scopeFlag is the --scope flag of reset, snapshot and restore: empty for
// the caller's default (its customer tree; the instance for an operator).
func scopeFlag(fs *flag.FlagSet) func() *api.SandboxScope {
	s := fs.String("scope", "", "TREE (your customer tree, role ADMIN) or INSTANCE (every customer, role OPERATOR); default: yours")
	return func() *api.SandboxScope {
		if *s == "" {
			return nil
		}
		sc := api.SandboxScope(strings.ToUpper(*s))
		return &sc
	}
}

// scopeName says what a reset or restore acted on.
func scopeName(s api.SandboxScope) string {
	if s == api.SandboxScopeINSTANCE {
		return "the whole instance"
	}
	return "your customer tree"
}
