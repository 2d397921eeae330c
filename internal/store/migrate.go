package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// migrations are written once in the SQL both engines accept. A change that
// needs engine-specific SQL is a Go migration (goMigrations) instead.
//
//go:embed migrations/*.sql
var migrations embed.FS

// Migrate applies every pending migration. On PostgreSQL a session advisory
// lock makes concurrent starts of several instances safe. A database with
// nothing pending is left at once, without the lock: instances that start
// together on a current database (a rolling restart, parallel tests) do
// not queue for it one after another.
func (s *Store) Migrate(ctx context.Context) error {
	return s.migrate(ctx, func(p *goose.Provider) ([]*goose.MigrationResult, error) {
		// HasPending takes no lock. On any error (no version table yet) Up
		// decides, under the lock.
		if pending, err := p.HasPending(ctx); err == nil && !pending {
			return []*goose.MigrationResult{}, nil // nothing to apply
		}
		return p.Up(ctx)
	})
}

// migrate runs up on the migration provider and logs what it applied.
func (s *Store) migrate(ctx context.Context, up func(*goose.Provider) ([]*goose.MigrationResult, error)) error {
	fsys, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return fmt.Errorf("open migrations: %w", err)
	}
	dialect := goose.DialectSQLite3
	opts := []goose.ProviderOption{goose.WithGoMigrations(goMigrations(s.dialect)...)}
	if s.dialect == Postgres {
		dialect = goose.DialectPostgres
		// Probe the lock every second (the default is 5 s, which made
		// concurrent starts, as in parallel tests, wait 5 s), for 5 minutes.
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300))
		if err != nil {
			return fmt.Errorf("create migration lock: %w", err)
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(dialect, s.write, fsys, opts...)
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	results, err := up(p)
	if err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	for _, r := range results {
		s.log.Info("applied migration", "version", r.Source.Version, "file", r.Source.Path, "took", r.Duration)
	}
	return nil
}
