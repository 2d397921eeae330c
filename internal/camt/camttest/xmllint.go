// Package camttest validates ISO 20022 files in tests against the official
// schemas with xmllint.
package camttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Standards is the directory of the official schemas (see its README.md).
func Standards(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("BANKRAIL_STANDARDS_DIR")
	if dir == "" { // the nearest shared/spec/standards above this package
		_, file, _, _ := runtime.Caller(0)
		for d := filepath.Dir(file); dir == ""; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "shared", "spec", "standards")); err == nil {
				dir = filepath.Join(d, "shared", "spec", "standards")
			} else if d == filepath.Dir(d) {
				dir = filepath.Join("..", "shared", "spec", "standards")
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "camt.054.001.08.xsd")); err != nil {
		if os.Getenv("BANKRAIL_REQUIRE_XMLLINT") == "1" {
			t.Fatalf("the ISO 20022 schemas are not at %s (set BANKRAIL_STANDARDS_DIR): %v", dir, err)
		}
		t.Skipf("the ISO 20022 schemas are not at %s (set BANKRAIL_STANDARDS_DIR to validate)", dir)
	}
	return dir
}

// ValidateXML checks that file validates against the official schema
// schema (e.g. camt.054.001.08.xsd) with xmllint. Without xmllint the test
// is skipped, or fails when BANKRAIL_REQUIRE_XMLLINT=1 (CI).
func ValidateXML(t *testing.T, schema, file string) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("BANKRAIL_REQUIRE_XMLLINT") == "1" {
			t.Fatalf("xmllint is required (BANKRAIL_REQUIRE_XMLLINT=1) but not installed: apt-get install libxml2-utils")
		}
		t.Skip("xmllint is not installed (apt-get install libxml2-utils): the schema validation is skipped")
	}
	out, err := exec.Command(xmllint, "--noout", "--nonet", "--schema", filepath.Join(Standards(t), schema), file).CombinedOutput()
	if err != nil {
		t.Fatalf("%s does not validate against %s: %v\n%s", file, schema, err, out)
	}
}
