package app

import (
	"context"
	"fmt"

	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/seed"
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
		res, err := seed.ApplyWithAccounts(ctx, a.identity, a.accounts, *f)
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
		public := identity.NewService(a.store, a.clock, identity.NewHasher(identity.PublicHashParams, 1))
		if _, err := seed.ApplyWithAccounts(ctx, public, a.accounts, seed.Demo(a.cfg.PublicURL)); err != nil {
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
