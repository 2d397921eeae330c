// Package xsdcheck validates XML that bankrail writes against the official
// ISO 20022 schemas in tests, with xmllint (Debian libxml2-utils). Without
// xmllint a test skips with a message that says so, unless
// BANKRAIL_REQUIRE_XMLLINT=1 (CI), which makes it fail.
package xsdcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Schema is the path of the official schema file name (e.g.
// "pain.001.001.10.xsd"): in BANKRAIL_STANDARDS_DIR when set, else in the
// nearest shared/spec/standards beside the repository or one of its
// parents (../shared of a checkout, ../../shared of a worktree).
func Schema(name string) string {
	if dir := os.Getenv("BANKRAIL_STANDARDS_DIR"); dir != "" {
		return filepath.Join(dir, name)
	}
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..") // the repository
	for range 4 {
		dir = filepath.Dir(dir)
		if p := filepath.Join(dir, "shared", "spec", "standards", name); exists(p) {
			return p
		}
	}
	return filepath.Join(dir, "shared", "spec", "standards", name)
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Validate checks that doc validates against the schema name; it fails t
// with xmllint's words when it does not.
func Validate(t testing.TB, name string, doc []byte) {
	t.Helper()
	lint, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("BANKRAIL_REQUIRE_XMLLINT") == "1" {
			t.Fatalf("xmllint is not installed (apt-get install libxml2-utils) and BANKRAIL_REQUIRE_XMLLINT=1")
		}
		t.Skipf("xmllint is not installed (apt-get install libxml2-utils): the files are not validated against %s", name)
	}
	xsd := Schema(name)
	if _, err := os.Stat(xsd); err != nil {
		if os.Getenv("BANKRAIL_REQUIRE_XMLLINT") == "1" {
			t.Fatalf("schema %s: %v", xsd, err)
		}
		t.Skipf("schema %s is not here (%v): set BANKRAIL_STANDARDS_DIR", xsd, err)
	}
	f := filepath.Join(t.TempDir(), "doc.xml")
	if err := os.WriteFile(f, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(lint, "--noout", "--schema", xsd, f).CombinedOutput()
	if err != nil {
		t.Fatalf("the document does not validate against %s: %v\n%s", name, err, out)
	}
}
