package store

import "database/sql"

// Pools returns the write and read connection pools, for tools that measure
// the database beside the service (cmd/bankrail-bench). Everything else uses
// the store's methods, which translate errors and keep transactions short.
func (s *Store) Pools() (write, read *sql.DB) { return s.write, s.read }
