package httpapi

import (
	"reflect"
	"testing"
)

func TestRefuseNulls(t *testing.T) {
	t.Parallel()
	type inner struct {
		Email string `json:"email"`
	}
	type body struct {
		Name  string   `json:"name"`
		Payer *inner   `json:"payer"`
		Lines []string `json:"lines"`
	}
	for _, tc := range []struct {
		name, body string
		refused    bool
	}{
		{"no null anywhere", `{"name":"a","payer":{"email":"x@y.z"}}`, false},
		{"null inside a string", `{"name":"null","payer":{"email":"nullable@y.z"}}`, false},
		{"null in an unknown field", `{"other":null}`, false},
		{"null field", `{"name":null}`, true},
		{"null nested field", `{"payer":{"email":null}}`, true},
		{"null list item", `{"lines":["a",null]}`, true},
		{"null body", `null`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := refuseNulls([]byte(tc.body), &body{})
			if (err != nil) != tc.refused {
				t.Fatalf("refuseNulls(%s) = %v, want refused %v", tc.body, err, tc.refused)
			}
		})
	}
}

// fieldType answers from its cache as it did the first time, and keeps
// no entry for a name the type does not have.
func TestFieldTypeIsCachedForKnownNamesOnly(t *testing.T) {
	t.Parallel()
	type s struct {
		Amount int64 `json:"amount"`
		Plain  string
	}
	typ := reflect.TypeOf(s{})
	for range 2 {
		if got := fieldType(typ, "amount"); got != reflect.TypeOf(int64(0)) {
			t.Fatalf("fieldType(amount) = %v", got)
		}
		if got := fieldType(typ, "PLAIN"); got != reflect.TypeOf("") {
			t.Fatalf("fieldType(PLAIN) = %v", got)
		}
	}
	if _, ok := fieldTypes.Load(fieldKey{typ, "amount"}); !ok {
		t.Fatal("a known name is not cached")
	}
	if fieldType(typ, "nope") != nil {
		t.Fatal("an unknown name has a type")
	}
	if _, ok := fieldTypes.Load(fieldKey{typ, "nope"}); ok {
		t.Fatal("an unknown name is cached")
	}
	if _, ok := fieldTypes.Load(fieldKey{typ, "PLAIN"}); ok {
		t.Fatal("a case variant of an untagged field is cached")
	}
}
