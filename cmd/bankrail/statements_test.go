package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/camt/camttest"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/statement"
)

// bankrail statements import of a camt.054 and the day's camt.053 that
// repeats it: the second books only what is new; --json prints one line a
// file; a file that is no statement exits 1 and writes nothing; the debit
// bankrail did not send is listed as an exception and resolved.
func TestStatementsImportCommand(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		storage := []string{"--data-dir", db.DataDir, "--database-url", db.DatabaseURL, "--mode", "production"}
		if db.Engine == dbtest.Postgres {
			storage[1] = t.TempDir()
		}
		const shop = "7c000000-0000-4000-8000-000000000003"
		if code, out, errOut := runCmd(t, append([]string{"customer", "create", "--name", "Acme", "--id", shop}, storage...)...); code != 0 {
			t.Fatalf("customer create: %d %s %s", code, out, errOut)
		}
		code, out, errOut := runCmd(t, append([]string{"account", "create", "--customer", shop, "--currency", "EUR", "--nickname", "main"}, storage...)...)
		m := regexp.MustCompile(`EUR (DE\d\d\w+) for customer`).FindStringSubmatch(out)
		if code != 0 || m == nil {
			t.Fatalf("account create: %d %s %s", code, out, errOut)
		}
		iban, dir := m[1], t.TempDir()
		credit := camttest.Entry{AcctSvcrRef: "C1", Minor: 1234, Credit: true, Txs: []camttest.Tx{{Ustrd: []string{"hello"}}}}
		fee := camttest.Entry{AcctSvcrRef: "F1", Minor: 250, Txs: []camttest.Tx{{Name: "Bank fee"}}}
		advice := filepath.Join(dir, "advice.xml")
		day := filepath.Join(dir, "day.xml")
		bad := filepath.Join(dir, "bad.xml")
		write(t, advice, camttest.String(54, 4, "ADV-1", camttest.Stmt{IBAN: iban, Entries: []camttest.Entry{credit}}))
		write(t, day, camttest.String(53, 2, "DAY-1", camttest.Stmt{IBAN: iban, Entries: []camttest.Entry{credit, fee}}))
		write(t, bad, `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.11"><CstmrPmtStsRpt/></Document>`)

		code, out, errOut = runCmd(t, append([]string{"statements", "import", advice, "--json", day, bad}, storage...)...)
		if code != 1 || !strings.Contains(errOut, "bad.xml") || !strings.Contains(errOut, "pain.002.001.11") {
			t.Fatalf("import: exit %d\n%s\n%s", code, out, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 2 {
			t.Fatalf("want one JSON line per imported file:\n%s", out)
		}
		var first, second statement.Summary
		if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(lines[1]), &second); err != nil {
			t.Fatal(err)
		}
		if first.Message != "camt.054.001.04" || first.ManualCredits != 1 || second.Message != "camt.053.001.02" ||
			second.Duplicates != 1 || second.ManualCredits != 0 || second.Exceptions != 1 {
			t.Fatalf("summaries %+v\n%+v", first, second)
		}
		code, out, errOut = runCmd(t, append([]string{"statements", "import", day}, storage...)...)
		if code != 0 || !strings.Contains(out, "duplicates 2") || !strings.Contains(out, iban+" (Connect account): credited 1 (1234 EUR), debited 1 (250 EUR)") {
			t.Fatalf("text summary: %d\n%s\n%s", code, out, errOut)
		}
		code, out, _ = runCmd(t, append([]string{"statements", "exceptions", "--status", "open"}, storage...)...)
		id := regexp.MustCompile(`^(\S+)  OPEN  debit 250 EUR`).FindStringSubmatch(out)
		if code != 0 || id == nil {
			t.Fatalf("exceptions: %d\n%s", code, out)
		}
		if code, out, errOut := runCmd(t, append([]string{"statements", "resolve", "--id", id[1], "--note", "bank fee"}, storage...)...); code != 0 || !strings.Contains(out, "resolved "+id[1]) {
			t.Fatalf("resolve: %d %s %s", code, out, errOut)
		}
		if code, out, _ := runCmd(t, append([]string{"statements", "list", "--json"}, storage...)...); code != 0 || strings.Count(out, `"message"`) != 3 {
			t.Fatalf("list: %d %s", code, out)
		}
		if code, _, errOut := runCmd(t, append([]string{"statements", "import"}, storage...)...); code != 2 || !strings.Contains(errOut, "no FILE") {
			t.Fatalf("import without a file: %d %s", code, errOut)
		}
	})
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}
