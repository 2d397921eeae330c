package app_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/seed"
)

// The demo merchant's credentials are published, so their hashes cost
// nothing (identity.PublicHashParams), whatever the instance's cost for
// every other secret; they still verify, and nothing else does.
func TestDemoCredentialsAreHashedAtNoCost(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	a, err := app.New(context.Background(), cfg, quietLog(), app.Options{}) // the default cost for everything else
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx := context.Background()
	client, err := a.Store().GetApplicationByClientID(ctx, seed.DemoClientID)
	if err != nil {
		t.Fatal(err)
	}
	user, err := a.Store().GetUserByUsername(ctx, seed.DemoUsername)
	if err != nil {
		t.Fatal(err)
	}
	p := identity.PublicHashParams
	want := "$m=" + itoa(p.Memory) + ",t=" + itoa(p.Time) + ",p=" + itoa(uint32(p.Threads)) + "$"
	for name, c := range map[string]struct{ hash, secret string }{
		"client secret": {client.ClientSecretHash, seed.DemoClientSecret},
		"password":      {user.PasswordHash, seed.DemoPassword},
	} {
		if !strings.Contains(c.hash, want) {
			t.Errorf("demo %s hashed as %q, want parameters %s", name, c.hash, want)
		}
		if ok, err := identity.VerifySecret(c.hash, c.secret); !ok || err != nil {
			t.Errorf("the published demo %s does not verify: %v %v", name, ok, err)
		}
		if ok, _ := identity.VerifySecret(c.hash, c.secret+"x"); ok {
			t.Errorf("another demo %s verifies", name)
		}
	}
}

func itoa(n uint32) string {
	return strconv.FormatUint(uint64(n), 10)
}
