package store

// HotQueriesPrepared reports whether every statement of hotQueries has
// been prepared on both pools (warmWrites).
func (s *Store) HotQueriesPrepared() bool {
	for _, q := range hotQueries {
		if s.warmStmtOn(s.write, q) == nil || s.warmStmtOn(s.read, q) == nil {
			return false
		}
	}
	return true
}
