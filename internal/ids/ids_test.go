package ids

import "testing"

func TestIsUUID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{"0f9d7c4e-2a5b-4c1e-9d3f-7a6b5c4d3e2f", true},
		{"0F9D7C4E-2A5B-4C1E-9D3F-7A6B5C4D3E2F", true},
		{"", false},
		{"0f9d7c4e2a5b4c1e9d3f7a6b5c4d3e2f", false},
		{"{0f9d7c4e-2a5b-4c1e-9d3f-7a6b5c4d3e2f}", false},
		{"urn:uuid:0f9d7c4e-2a5b-4c1e-9d3f-7a6b5c4d3e2f", false},
		{"0f9d7c4e-2a5b-4c1e-9d3f-7a6b5c4d3e2g", false},
		{"0f9d7c4e-2a5b-4c1e-9d3f_7a6b5c4d3e2f", false},
	}
	for _, tt := range tests {
		if got := IsUUID(tt.in); got != tt.want {
			t.Errorf("IsUUID(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestNewIsATimeOrderedUUID(t *testing.T) {
	prev := ""
	for i := range 1000 {
		id := New()
		if !IsUUID(id) || id[14] != '7' {
			t.Fatalf("New() = %q, want a uuid v7", id)
		}
		if id <= prev {
			t.Fatalf("id %d, %q, sorts before or with the one before it, %q", i, id, prev)
		}
		prev = id
	}
}
