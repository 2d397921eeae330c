package legacy

import (
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/payment"
)

var update = flag.Bool("update", false, "rewrite docs/legacy-migration.md from the mapping table")

const guideFile = "../../docs/legacy-migration.md"

// TestGuideIsCurrent fails when the committed migration guide is not what
// the mapping table renders; go generate ./internal/legacy rewrites it.
func TestGuideIsCurrent(t *testing.T) {
	t.Parallel()
	want := Guide()
	if *update {
		if err := os.WriteFile(guideFile, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(guideFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s is stale: the mapping table changed. Run: go generate ./internal/legacy", guideFile)
	}
	for _, r := range Table {
		for _, p := range append(r.Legacy, r.Global...) {
			if !strings.Contains(want, "`"+p+"`") {
				t.Errorf("the guide does not name %s", p)
			}
		}
	}
}

// The guide's example is a valid payment.
func TestGuideExampleIsValid(t *testing.T) {
	t.Parallel()
	g, m, err := Map(ExampleRequest())
	if err != nil || m.Failed() {
		t.Fatalf("map: %v %v", err, m.Translate(nil))
	}
	if err := payment.Validate(&g, payment.ChannelHosted, payment.Limits{MaxMajor: 10_000}, bank.Default()); err != nil {
		t.Fatal(err)
	}
}

func TestDeprecationHeaders(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		"Deprecation": "@1735689600",
		"Sunset":      "Wed, 31 Dec 2025 23:59:59 GMT",
		"Link":        `</legacy/migration-guide>; rel="deprecation"; type="text/markdown", </legacy/migration-guide>; rel="sunset"; type="text/markdown"`,
	}
	hs := DeprecationHeaders()
	if len(hs) != len(want) {
		t.Fatalf("headers %v", hs)
	}
	for _, h := range hs {
		if want[h.Name] != h.Value {
			t.Errorf("%s: %q, want %q", h.Name, h.Value, want[h.Name])
		}
	}
	if _, err := time.Parse(time.RFC1123, want["Sunset"]); err != nil || !DeprecatedAt.Before(SunsetAt) {
		t.Fatalf("sunset %v, deprecated %v", err, DeprecatedAt)
	}
}
