package main

import (
	"context"
	"fmt"
	"io"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
)

const migrateHelp = `Usage: bankrail migrate [flags]

Applies every pending database migration and exits. serve does the same at
start; use migrate to upgrade a database before rolling out new instances
(docs/operations.md says which migrations are safe while old ones run).

The database remembers its mode (sandbox or production): the first serve, or
migrate --mode, records it, and an instance of the other mode refuses the
database. --convert-to changes the recorded mode, deliberately: a sandbox
database becomes a production one (its demo merchant and test data stay:
remove them first) or the reverse (a sandbox's reset can then roll the data
back to its baseline).

Examples:
  bankrail migrate --database-url postgres://... --mode production
  bankrail migrate --database-url postgres://... --convert-to production
`

func migrate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg := config.Default()
	fs := newFlagSet("migrate", migrateHelp)
	storageFlags(fs, &cfg)
	var convertTo string
	fs.StringVar(&convertTo, "convert-to", "", "record this mode (sandbox or production) as the database's, replacing the one recorded")
	if err := parse(fs, args); err != nil {
		return exitCode(fs, err, stdout, stderr)
	}
	if convertTo != "" {
		if cfg.ModeGiven && config.Mode(convertTo) != cfg.Mode {
			fmt.Fprintf(stderr, "bankrail: --convert-to %s contradicts --mode %s\n", convertTo, cfg.Mode)
			return 2
		}
		cfg.ModeGiven = false // the database's mode is the one being replaced
	}
	return withDatabase(ctx, cfg, stderr, func(ctx context.Context, a *app.App) error {
		fmt.Fprintf(stdout, "database is up to date (%s)\n", cfg.DatabaseDescription())
		return migrateMode(ctx, a, cfg.ModeGiven, config.Mode(convertTo), stdout)
	})
}

func version(stdout io.Writer) int {
	fmt.Fprintf(stdout, "bankrail %s\n", app.Version())
	return 0
}

// migrateMode records the mode given to migrate, or converts the database to
// convertTo, and says which mode the database is in.
func migrateMode(ctx context.Context, a *app.App, given bool, convertTo config.Mode, stdout io.Writer) error {
	switch {
	case convertTo != "":
		prev, err := a.ConvertMode(ctx, convertTo)
		if err != nil {
			return err
		}
		if prev == "" {
			prev = "no mode recorded"
		}
		fmt.Fprintf(stdout, "database converted: %s -> %s\n", prev, convertTo)
		return nil
	case given:
		if err := a.RecordMode(ctx); err != nil {
			return err
		}
	}
	recorded, err := a.RecordedMode(ctx)
	if err != nil {
		return err
	}
	if recorded == "" {
		fmt.Fprintln(stdout, "mode: none recorded yet (the first serve records its --mode)")
		return nil
	}
	fmt.Fprintf(stdout, "mode: %s\n", recorded)
	return nil
}
