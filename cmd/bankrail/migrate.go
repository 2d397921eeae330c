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
start; use migrate to upgrade a database before rolling out new instances.
`

func migrate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg := config.Default()
	fs := newFlagSet("migrate", migrateHelp)
	storageFlags(fs, &cfg)
	if err := parse(fs, args); err != nil {
		return exitCode(fs, err, stdout, stderr)
	}
	return withDatabase(ctx, cfg, stderr, func(context.Context, *app.App) error {
		fmt.Fprintf(stdout, "database is up to date (%s)\n", cfg.DatabaseDescription())
		return nil
	})
}

func version(stdout io.Writer) int {
	fmt.Fprintf(stdout, "bankrail %s\n", app.Version())
	return 0
}
