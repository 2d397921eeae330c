package main

import (
	"context"
	"fmt"
	"io"

	"github.com/bankrail/bankrail/internal/xs2a"
)

const banksHelp = `Usage: bankrail banks check --banks FILE

Reaches every bank of a production bank directory (the file serve --banks
reads: NextGenPSD2 base URL, client certificate and key, CA pool) and says
which answer: a bank answers when the TLS handshake with bankrail's client
certificate succeeds and it sends any HTTP answer (it is asked the status of
a payment that does not exist). Exits 1 when a bank does not answer.
Certificates and keys are read from their files or environment variables
and never printed.

Example:
  bankrail banks check --banks /etc/bankrail/banks.yaml
`

func banksCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("banks check", banksHelp)
	file := fs.String("banks", "", "the bank directory (YAML; docs/operations.md, \"Connecting a bank\")")
	if len(args) == 0 || args[0] != "check" {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
			fmt.Fprint(stdout, banksHelp)
			return 0
		}
		fmt.Fprint(stderr, banksHelp)
		return 2
	}
	if err := parse(fs, args[1:]); err != nil {
		return exitCode(fs, err, stdout, stderr)
	}
	if *file == "" {
		fmt.Fprintln(stderr, "bankrail: --banks is required")
		return 2
	}
	d, err := xs2a.LoadDirectory(*file)
	if err != nil {
		fmt.Fprintln(stderr, "bankrail:", err)
		return 1
	}
	results, err := d.Check(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "bankrail:", err)
		return 1
	}
	code := 0
	for _, r := range results {
		if r.Err != nil {
			fmt.Fprintf(stdout, "%s  %s  does not answer: %v\n", r.BankID, r.BaseURL, r.Err)
			code = 1
			continue
		}
		fmt.Fprintf(stdout, "%s  %s  answers (HTTP %d)\n", r.BankID, r.BaseURL, r.Status)
	}
	return code
}
