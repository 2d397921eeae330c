package errs

import "fmt"

// Validation collects every failing field of a request so that a client sees
// all of them at once. The zero value is ready to use.
type Validation struct {
	fields []FieldError
}

// Add records one failing field.
func (v *Validation) Add(typ, path, format string, args ...any) {
	v.fields = append(v.fields, FieldError{Type: typ, PropertyPath: path, Message: fmt.Sprintf(format, args...)})
}

// Failed reports whether any field failed.
func (v *Validation) Failed() bool { return len(v.fields) > 0 }

// HasPath reports whether path already failed (to avoid piling up errors on
// one field).
func (v *Validation) HasPath(path string) bool {
	for _, f := range v.fields {
		if f.PropertyPath == path {
			return true
		}
	}
	return false
}

// Err returns a VALIDATION_FAILURE error listing every failure, or nil.
func (v *Validation) Err() error {
	if len(v.fields) == 0 {
		return nil
	}
	return &Error{Code: ValidationFailure, Message: "The request failed validation; see errors for each field.", Fields: v.fields}
}
