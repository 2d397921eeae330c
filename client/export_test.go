package client

// OperationInfo describes an operation of the client's table, for the
// tests of package client_test.
type OperationInfo struct {
	ID, Method, Path                            string
	Public, Versioned, Idempotent, Form, NDJSON bool
}

// Operations is the client's table of operations.
func Operations() map[string]OperationInfo {
	out := map[string]OperationInfo{}
	for id, o := range operations {
		out[id] = OperationInfo{ID: id, Method: o.method, Path: o.path, Public: o.flags&public != 0,
			Versioned: o.flags&versioned != 0, Idempotent: o.flags&idempotent != 0, Form: o.flags&formBody != 0, NDJSON: o.flags&ndjsonBody != 0}
	}
	return out
}
