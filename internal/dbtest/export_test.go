package dbtest

// FreeSchemas lists the PostgreSQL copies kept for the next test.
func FreeSchemas() []string {
	pgFree.mu.Lock()
	defer pgFree.mu.Unlock()
	return append([]string(nil), pgFree.schemas...)
}
