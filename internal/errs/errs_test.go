package errs

import (
	"errors"
	"fmt"
	"testing"
)

func TestCodeOfFollowsWrapping(t *testing.T) {
	t.Parallel()
	base := E(NotFound, "payment %s not found", "x")
	wrapped := fmt.Errorf("load payment: %w", base)
	if got := CodeOf(wrapped); got != NotFound {
		t.Fatalf("CodeOf(wrapped) = %s, want %s", got, NotFound)
	}
	if got := CodeOf(errors.New("boom")); got != Internal {
		t.Fatalf("CodeOf(plain) = %s, want %s", got, Internal)
	}
	if !Is(wrapped, NotFound) || Is(nil, NotFound) {
		t.Fatal("Is does not follow CodeOf")
	}
}

func TestValidationCollectsEveryField(t *testing.T) {
	t.Parallel()
	var v Validation
	if v.Err() != nil {
		t.Fatal("empty validation must return nil")
	}
	v.Add(TooLong, "beneficiary.accountIdentifiers.iban", "must be at most %d characters", 36)
	v.Add(ValueRequired, "currency", "is required")
	err := v.Err()
	var e *Error
	if !errors.As(err, &e) || e.Code != ValidationFailure || len(e.Fields) != 2 {
		t.Fatalf("got %#v", err)
	}
	if !v.HasPath("currency") || v.HasPath("amount") {
		t.Fatal("HasPath is wrong")
	}
	if e.Fields[0].Message != "must be at most 36 characters" {
		t.Fatalf("message = %q", e.Fields[0].Message)
	}
}
