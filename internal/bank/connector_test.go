package bank

import (
	"context"
	"net/url"
	"testing"
)

// fakeConnector is a connector known by its name.
type fakeConnector struct{ name string }

func (f fakeConnector) Start(_ context.Context, a Authorisation) (string, error) {
	return "https://" + f.name + ".example/authorise/" + a.PaymentID, nil
}

func (f fakeConnector) Answer(_ context.Context, _ Authorisation, params url.Values) (Answer, error) {
	return Answer{Outcome: params.Get("result")}, nil
}

func TestConnectors(t *testing.T) {
	t.Parallel()
	banks := Default().List(Filter{Country: "DE"})
	if len(banks) < 3 {
		t.Fatalf("%d German banks, want 3 or more", len(banks))
	}
	a, b := fakeConnector{"a"}, fakeConnector{"b"}

	var none *Connectors
	if _, ok := none.For(banks[0].ID); ok || none.Len() != 0 {
		t.Fatal("a nil map has a connector")
	}
	cs := NewConnectors()
	if _, ok := cs.For(banks[0].ID); ok || cs.Len() != 0 {
		t.Fatal("a new map has a connector")
	}
	if err := cs.Connect(a, banks[0], banks[1]); err != nil {
		t.Fatal(err)
	}
	if err := cs.Connect(b, banks[2]); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		bankID string
		want   Connector
	}{
		{banks[0].ID, a}, {banks[1].ID, a}, {banks[2].ID, b}, {"", nil}, {"ba4c0276-0000-4000-8000-0000000000ff", nil},
	} {
		got, ok := cs.For(tt.bankID)
		if ok != (tt.want != nil) || got != tt.want {
			t.Errorf("For(%q) = %v, %v; want %v", tt.bankID, got, ok, tt.want)
		}
	}

	// Wrong wiring is refused and changes nothing.
	for name, connect := range map[string]func() error{
		"a bank connected twice":       func() error { return cs.Connect(b, banks[3%len(banks)], banks[0]) },
		"a nil connector":              func() error { return cs.Connect(nil, banks[len(banks)-1]) },
		"a bank without an id":         func() error { return cs.Connect(b, Bank{Name: "Nameless"}) },
		"a duplicate in the same call": func() error { return NewConnectors().Connect(a, banks[1], banks[1]) },
	} {
		if err := connect(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if got, _ := cs.For(banks[0].ID); got != a || cs.Len() != 3 {
		t.Fatalf("a refused Connect changed the map: %v, %d banks", got, cs.Len())
	}
	if _, ok := cs.For(banks[len(banks)-1].ID); ok && len(banks) > 3 {
		t.Fatal("a refused Connect added a bank")
	}
}
