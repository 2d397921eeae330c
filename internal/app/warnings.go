package app

import (
	"context"
	"net/url"

	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/seed"
)

// warnProduction logs, at the start of a production instance, what works
// but should not be left so: a public URL over plain http (payers' and
// merchants' credentials and tokens would cross the network in clear), the
// default issuer (every deployment that keeps it signs tokens naming the
// same issuer), and the sandbox demo merchant's published credentials in
// the database (a converted sandbox, or a seed file copied from the
// README). It refuses nothing: an instance behind a TLS proxy on an
// internal network may have its reasons (docs/operations.md).
func (a *App) warnProduction(ctx context.Context) {
	if a.cfg.Mode != config.Production {
		return
	}
	if u, err := url.Parse(a.cfg.PublicURL); err == nil && u.Scheme == "http" {
		a.log.Warn("production: --public-url is plain http; payers and merchants should reach the instance over https (a TLS reverse proxy, docs/operations.md)",
			"public_url", a.cfg.PublicURL)
	}
	if a.cfg.Issuer == config.DefaultIssuer {
		a.log.Warn("production: the token issuer is the default \""+config.DefaultIssuer+"\"; give --issuer (or --public-url) the deployment's own name, the same on every instance",
			"issuer", a.cfg.Issuer)
	}
	if u, err := a.store.GetUserByUsername(ctx, seed.DemoUsername); err == nil && u.DisabledAt.IsZero() {
		if ok, _ := a.hasher.Verify(ctx, u.PasswordHash, seed.DemoPassword); ok {
			a.log.Warn("production: the sandbox demo user signs in with its published password; disable it (bankrail user disable --username "+seed.DemoUsername+") or give it another password",
				"username", seed.DemoUsername)
		}
	}
	if app, err := a.store.GetApplicationByClientID(ctx, seed.DemoClientID); err == nil {
		if ok, _ := a.hasher.Verify(ctx, app.ClientSecretHash, seed.DemoClientSecret); ok {
			a.log.Warn("production: the application "+seed.DemoClientID+" has the demo's published client secret; give it another (bankrail application create --customer ... --client-id "+seed.DemoClientID+")",
				"client_id", seed.DemoClientID)
		}
	}
}
