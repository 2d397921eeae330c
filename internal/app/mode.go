package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/bankrail/bankrail/internal/config"
)

// ErrModeMismatch is the error of a process whose mode is not the one
// recorded in its database.
var ErrModeMismatch = errors.New("the database's mode is not the instance's")

// modePolicy is what opening a database does with the mode recorded in it.
type modePolicy int

const (
	// recordMode (serve): record the configured mode in a database that has
	// none; refuse a database of the other mode.
	recordMode modePolicy = iota
	// adoptMode (administration commands, migrate): run in the recorded
	// mode; refuse only a mode given explicitly that is not the recorded
	// one. A database with no mode recorded is left so.
	adoptMode
)

// settleMode compares the configured mode with the one recorded in the
// database, before anything depends on the mode (the virtual clock, the
// URL guard, the demo merchant, a sandbox's reset): a sandbox never runs on
// a production database nor the reverse (issue 30, item 2).
func (a *App) settleMode(ctx context.Context, policy modePolicy) error {
	recorded, err := a.store.InstanceMode(ctx)
	if err != nil {
		return err
	}
	if recorded == "" && policy == recordMode {
		a.modeToRecord = true // once the start has succeeded: a failed one records nothing
		return nil
	}
	switch {
	case recorded == "" || config.Mode(recorded) == a.cfg.Mode:
		return nil
	case policy == adoptMode && !a.cfg.ModeGiven:
		a.cfg.Mode = config.Mode(recorded)
		return nil
	}
	return ModeMismatch(config.Mode(recorded), a.cfg.Mode)
}

// recordStartMode records the mode of a start that found none recorded,
// once everything else of the start has succeeded; of two instances
// starting at once on a new database, the second compares with the first's.
func (a *App) recordStartMode(ctx context.Context) error {
	if !a.modeToRecord {
		return nil
	}
	recorded, err := a.store.RecordInstanceMode(ctx, string(a.cfg.Mode))
	if err != nil {
		return err
	}
	if config.Mode(recorded) != a.cfg.Mode {
		return ModeMismatch(config.Mode(recorded), a.cfg.Mode)
	}
	return nil
}

// ModeMismatch is the error of a process in mode want on a database of
// mode recorded: it says how to start in the database's mode and how to
// convert the database deliberately.
func ModeMismatch(recorded, want config.Mode) error {
	return fmt.Errorf("%w: this is a %s database, and a %s instance refuses it "+
		"(start with --mode %s, or convert the database deliberately: bankrail migrate --convert-to %s, docs/operations.md)",
		ErrModeMismatch, recorded, want, recorded, want)
}

// RecordedMode is the mode recorded in the database ("" when none is).
func (a *App) RecordedMode(ctx context.Context) (config.Mode, error) {
	m, err := a.store.InstanceMode(ctx)
	return config.Mode(m), err
}

// RecordMode records the app's mode in a database that has none (migrate
// --mode); settleMode has refused a database of the other mode already.
func (a *App) RecordMode(ctx context.Context) error {
	_, err := a.store.RecordInstanceMode(ctx, string(a.cfg.Mode))
	return err
}

// ConvertMode records to as the database's mode, whatever it was (migrate
// --convert-to): the deliberate conversion of a sandbox database into a
// production one or the reverse. It returns the mode it replaced.
func (a *App) ConvertMode(ctx context.Context, to config.Mode) (config.Mode, error) {
	if to != config.Sandbox && to != config.Production {
		return "", fmt.Errorf("--convert-to must be sandbox or production, got %q", to)
	}
	prev, err := a.store.ConvertInstanceMode(ctx, string(to))
	if err != nil {
		return "", fmt.Errorf("convert the database to %s: %w", to, err)
	}
	return config.Mode(prev), nil
}
