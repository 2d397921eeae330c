package app

import (
	"context"
	"fmt"
	"net"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/netguard"
	"github.com/bankrail/bankrail/internal/seed"
	"github.com/bankrail/bankrail/internal/store"
)

// seed applies the seed file, or creates the demo merchant in an empty
// sandbox.
func (a *App) seed(ctx context.Context, opts Options) error {
	f := opts.Seed
	if f == nil && a.cfg.SeedFile != "" {
		loaded, err := seed.Load(a.cfg.SeedFile)
		if err != nil {
			return err
		}
		f = &loaded
	}
	if f != nil {
		res, err := a.applySeed(ctx, a.hasher, a.seedURLCheck(), *f)
		if err != nil {
			return err
		}
		a.log.Info("applied seed", "file", a.cfg.SeedFile, "created", res.Created, "updated", res.Updated, "unchanged", res.Unchanged)
		return nil
	}
	if a.cfg.Mode != config.Sandbox {
		return nil
	}
	n, err := a.store.CountCustomers(ctx)
	if err != nil {
		return err
	}
	if n == 0 {
		// The demo's credentials are published: hashed at no cost.
		public := identity.NewHasher(identity.PublicHashParams, 1)
		if _, err := a.applySeed(ctx, public, nil, seed.Demo(a.cfg.PublicURL)); err != nil {
			return fmt.Errorf("create demo merchant: %w", err)
		}
		a.log.Info("created the sandbox demo merchant", "client_id", seed.DemoClientID, "username", seed.DemoUsername)
	}
	_, err = a.store.GetUserByUsername(ctx, seed.DemoUsername)
	a.demo = err == nil
	if a.demo {
		if err := a.demoAccounts(ctx); err != nil {
			return err
		}
		return a.demoToInbox(ctx)
	}
	return nil
}

// applySeed applies f in one transaction: all of it or, when any part is
// refused (a notification URL, a short secret, a conflict), none of it, so
// that a failed start leaves nothing half-seeded (issue 30, item 3).
func (a *App) applySeed(ctx context.Context, hasher *identity.Hasher, check identity.URLCheck, f seed.File) (seed.Result, error) {
	var res seed.Result
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		clk := a.clock
		if a.virtual != nil { // the tenants' clocks of the customers this transaction creates
			clk = clock.NewTenants(a.virtual, tx.TenantClocks(), a.cfg.ClockRefresh)
		}
		svc := identity.NewService(tx.Identity(), clk, hasher)
		if check != nil {
			svc.CheckNotificationURLs(check)
		}
		var err error
		res, err = seed.ApplyWithAccounts(ctx, svc, ledger.NewService(tx.Ledger(), clk), f)
		return err
	})
	if err != nil {
		return seed.Result{}, fmt.Errorf("%w (nothing of the seed file was applied)", err)
	}
	return res, nil
}

// seedURLCheck checks the seed's notification URLs in production: an
// address that is loopback, private, link-local or metadata is refused, but
// a host name that does not resolve now is accepted with a warning (start-up
// must not depend on merchants' DNS); delivery checks the addresses again
// when it dials (netguard.Dialer).
func (a *App) seedURLCheck() identity.URLCheck {
	if a.cfg.Mode != config.Production {
		return nil
	}
	return func(ctx context.Context, rawURL, field string) error {
		unresolved, err := netguard.CheckURLAtStart(ctx, net.DefaultResolver, rawURL, field)
		if unresolved {
			a.log.Warn("a seeded notification URL's host does not resolve now; accepted, and checked again at each delivery",
				"url", rawURL)
		}
		return err
	}
}

// demoToInbox points a demo application that has no notification URL (one
// created before the sandbox inbox existed) at the sandbox inbox, so that
// its notifications stop failing for want of a URL.
func (a *App) demoToInbox(ctx context.Context) error {
	app, err := a.store.GetApplicationByClientID(ctx, seed.DemoClientID)
	if err != nil || app.NotificationURL != "" {
		return nil
	}
	app.NotificationURL = seed.DemoNotificationURL(a.cfg.PublicURL)
	if err := a.store.UpdateApplication(ctx, app); err != nil {
		return fmt.Errorf("point the demo application at the sandbox inbox: %w", err)
	}
	a.log.Info("the demo application's notifications now go to the sandbox inbox", "url", app.NotificationURL)
	return nil
}

// demoAccounts opens the demo merchant's EUR and GBP accounts in a
// database whose demo merchant was created before accounts existed.
func (a *App) demoAccounts(ctx context.Context) error {
	for _, acct := range seed.Demo("").Customers[0].Accounts {
		if _, _, err := a.accounts.EnsureAccount(ctx, ledger.AccountSpec{ID: acct.ID, CustomerID: seed.DemoCustomerID,
			Currency: acct.Currency, IBAN: acct.IBAN, Nickname: acct.Nickname}); err != nil {
			return fmt.Errorf("open the demo merchant's %s account: %w", acct.Currency, err)
		}
	}
	return nil
}
