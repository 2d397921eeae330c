package identity

import (
	"strings"
	"testing"
)

var cheap = HashParams{Time: 1, Memory: 1024, Threads: 1}

func TestHashAndVerifySecret(t *testing.T) {
	t.Parallel()
	h, err := HashSecret("correct horse", cheap)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=1024,t=1,p=1$") {
		t.Fatalf("hash is not a PHC argon2id string: %s", h)
	}
	if ok, err := VerifySecret(h, "correct horse"); err != nil || !ok {
		t.Fatalf("right secret: ok=%v err=%v", ok, err)
	}
	if ok, _ := VerifySecret(h, "wrong horse"); ok {
		t.Fatal("wrong secret verified")
	}
	h2, _ := HashSecret("correct horse", cheap)
	if h == h2 {
		t.Fatal("two hashes of one secret must differ by salt")
	}
}

func TestVerifySecretRejectsMalformedHashes(t *testing.T) {
	t.Parallel()
	for _, h := range []string{"", "plain", "$argon2i$v=19$m=1,t=1,p=1$AA$AA", "$argon2id$v=18$m=1,t=1,p=1$AA$AA",
		"$argon2id$v=19$m=x$AA$AA", "$argon2id$v=19$m=1,t=1,p=1$!!$AA", "$argon2id$v=19$m=1,t=1,p=1$AA$"} {
		if ok, err := VerifySecret(h, "x"); ok || err == nil {
			t.Errorf("VerifySecret(%q) = %v, %v", h, ok, err)
		}
	}
}

func TestRoles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		role Role
		perm Permission
		want bool
	}{
		{RoleMerchant, PaymentsWrite, true},
		{RoleReadOnly, PaymentsRead, true},
		{RoleReadOnly, PaymentsWrite, false},
		{RoleReadOnly, SandboxControl, false},
		{RoleAdmin, SandboxControl, true},
		{Role("NOBODY"), PaymentsRead, false},
	}
	for _, tt := range tests {
		if got := tt.role.Can(tt.perm); got != tt.want {
			t.Errorf("%s.Can(%s) = %v, want %v", tt.role, tt.perm, got, tt.want)
		}
	}
	if r, err := ParseRole(" merchant "); err != nil || r != RoleMerchant {
		t.Fatalf("ParseRole = %v, %v", r, err)
	}
	if _, err := ParseRole("god"); err == nil || !strings.Contains(err.Error(), "ADMIN") {
		t.Fatalf("ParseRole(god) = %v", err)
	}
}
