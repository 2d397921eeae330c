package notification_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportableFromAnotherModule builds a merchant's module that requires
// this one and imports the receiver package, as `go get` would set it up. A
// module path without a dot in its first element ("bankrail") fails here:
// the go command refuses to require it.
func TestImportableFromAnotherModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a separate module with the go command; skipped in -short")
	}
	goBin, err := exec.LookPath("go") // go test puts its own GOROOT/bin first in PATH
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	modLine := readModuleLine(t, filepath.Join(root, "go.mod"))

	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module example.com/merchant\n\ngo 1.26\n\n"+
		"require "+modLine+" v0.0.0\n\nreplace "+modLine+" => "+root+"\n")
	write(t, filepath.Join(dir, "main.go"), "package main\n\nimport \""+modLine+"/notification\"\n\n"+
		"func main() { _ = notification.Verifier{Secret: \"s\"} }\n")

	cmd := exec.Command(goBin, "build", "-o", os.DevNull, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("a merchant's module cannot import %s/notification: %v\n%s", modLine, err, out)
	}
}

func readModuleLine(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "module "); ok {
			return strings.TrimSpace(rest)
		}
	}
	t.Fatalf("no module line in %s", path)
	return ""
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
