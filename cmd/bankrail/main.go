// Command bankrail runs the bankrail payment provider: the Global and legacy
// APIs, the hosted checkout, the mock banks of the sandbox and the background
// workers, over SQLite (default) or PostgreSQL.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `bankrail - a pay-by-bank payment provider you can run yourself.

Usage:
  bankrail <command> [flags]

Commands:
  serve         run the service (sandbox by default: mock banks, virtual clock, demo merchant)
  migrate       apply database migrations and exit
  version       print the version
  customer      create, list, get customers          (bankrail customer --help)
  application   create, list, get applications       (bankrail application --help)
  user          create, list, get, disable users     (bankrail user --help)
  keys          rotate token signing keys            (bankrail keys rotate --help)
  account       create, list, get Connect accounts   (bankrail account --help)
  ledger        verify the books: balances against postings (bankrail ledger verify --help)
  jobs          dead, retry: list dead jobs, run one again  (bankrail jobs --help)
  statements    import, list, exceptions, resolve: the bank's statements (camt.053/054) and
                the reconciliation exceptions (bankrail statements --help; docs/banking.md)
  banks         check: does every bank of the directory answer (bankrail banks check --help)
  transfers     export, status: payouts and refunds out as pain.001 files, the bank's pain.002
                answers in (bankrail transfers --help; docs/banking.md)

For merchant developers, against a running instance (docs/cli.md):
  login         store a profile (URL, credentials) that the commands below use
  trigger       create a payment and drive it to an outcome: bankrail trigger COMPLETED
  payments      list your payments, show one:  bankrail payments list / get <id>
  notifications follow the delivery log live, forwarding to a local receiver:
                bankrail notifications tail --forward-to http://localhost:4242/hook
                deliver one again:  bankrail notifications resend <id>
  sandbox       reset, snapshot, restore the sandbox; webhook chaos (bankrail sandbox --help)

Every flag can also be set with an environment variable BANKRAIL_<NAME>
(--database-url is BANKRAIL_DATABASE_URL). Flags win over the environment.

Start here:
  bankrail serve                 # SQLite in ./bankrail-data, sandbox, prints demo credentials
  bankrail serve --help          # every setting; every command has --help

Docs: README.md and docs/ in the repository; on a running server, its start page (/)
and /openapi.json.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return serve(ctx, rest, stdout, stderr)
	case "migrate":
		return migrate(ctx, rest, stdout, stderr)
	case "version", "--version":
		return version(stdout)
	case "customer", "application", "user", "keys", "account", "ledger", "jobs", "transfers":
		return admin(ctx, cmd, rest, stdout, stderr)
	case "statements":
		return statementsCmd(ctx, rest, stdout, stderr)
	case "sandbox":
		return sandboxCmd(ctx, rest, stdout, stderr)
	case "banks":
		return banksCmd(ctx, rest, stdout, stderr)
	case "login":
		return login(ctx, rest, stdout, stderr)
	case "trigger":
		return trigger(ctx, rest, stdout, stderr)
	case "notifications":
		return notifications(ctx, rest, stdout, stderr)
	case "payments":
		return payments(ctx, rest, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "bankrail: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
}
