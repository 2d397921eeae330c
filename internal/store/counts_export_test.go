package store

import "context"

// QueryInt reads one integer with query on the write pool (for tests that
// compare what the store keeps with the rows themselves).
func (s *Store) QueryInt(ctx context.Context, query string, args ...any) (int, error) {
	var n int
	err := s.write.QueryRowContext(ctx, query, args...).Scan(&n)
	return n, err
}
