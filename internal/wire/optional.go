package wire

// Opt is s as an optional wire string: absent (nil) when empty, so that
// omitempty leaves it out as the document describes.
func Opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Val is an optional wire value, or its zero value when absent.
func Val[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
