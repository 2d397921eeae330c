package app

import (
	"context"

	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/httpapi"
	"github.com/bankrail/bankrail/internal/sandbox"
)

// sandboxState builds the reset, snapshot and restore of the whole sandbox
// (nil in production) and takes the baseline the first time: right after
// this start seeded a database that has none.
func (a *App) sandboxState(ctx context.Context) (httpapi.SandboxState, error) {
	if a.cfg.Mode != config.Sandbox {
		return nil, nil
	}
	svc := sandbox.NewService(a.store, a.clock, a.virtual.Forget, a.cfg.SandboxInstanceControls)
	taken, err := svc.EnsureBaseline(ctx)
	if err != nil {
		return nil, err
	}
	if taken {
		a.log.Info("took the sandbox baseline: POST /sandbox/reset brings the instance back to this seed state")
	}
	return svc, nil
}

// sandboxClocks are the controls of the tenants' clocks the adapters call
// (nil in production).
func (a *App) sandboxClocks() *sandbox.Clocks {
	if a.virtual == nil {
		return nil
	}
	return sandbox.NewClocks(a.virtual)
}
