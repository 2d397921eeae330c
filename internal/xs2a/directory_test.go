package xs2a

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A bank directory with a mistake is refused with the place of each one,
// and never with a secret's content.
func TestLoadDirectoryRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "secret.pem")
	if err := os.WriteFile(notPEM, []byte("TOP-SECRET-KEY-MATERIAL"), 0o600); err != nil {
		t.Fatal(err)
	}
	const id = "5a1e0000-0000-4000-8000-000000000001"
	for _, tt := range []struct {
		name, yaml, want string
	}{
		{"an id that is no uuid", "banks:\n  - id: bank-1\n    baseUrl: https://b.example\n", "banks[0].id must be a UUID"},
		{"a bank twice", "banks:\n  - id: " + id + "\n    baseUrl: https://b.example\n  - id: " + id + "\n    baseUrl: https://b.example\n", "listed twice"},
		{"no base URL", "banks:\n  - id: " + id + "\n", "banks[0].baseUrl must be an https URL"},
		{"an unknown product", "banks:\n  - id: " + id + "\n    baseUrl: https://b.example\n    products: [target-2-payments]\n", "target-2-payments is not one of"},
		{"a bad timeout", "banks:\n  - id: " + id + "\n    baseUrl: https://b.example\n    timeout: soon\n", "timeout must be a duration"},
		{"a certificate without key", "banks:\n  - id: " + id + "\n    baseUrl: https://b.example\n    clientCert: {file: " + notPEM + "}\n", "go together"},
		{"an environment variable not set", "banks:\n  - id: " + id + "\n    baseUrl: https://b.example\n    caCerts: {env: BANKRAIL_TEST_NOT_SET_ANYWHERE}\n", "BANKRAIL_TEST_NOT_SET_ANYWHERE is not set"},
		{"a key that is no key", "banks:\n  - id: " + id + "\n    baseUrl: https://b.example\n    clientCert: {file: " + notPEM + "}\n    clientKey: {file: " + notPEM + "}\n", "are not a certificate and its key"},
		{"an unknown SCA approach", "banks:\n  - id: " + id + "\n    baseUrl: https://b.example\n    scaApproach: EMBEDDED\n", "scaApproach must be REDIRECT or DECOUPLED"},
		{"an unknown field", "banks:\n  - id: " + id + "\n    baseUrl: https://b.example\n    password: x\n", "field password not found"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".yaml")
		if err := os.WriteFile(path, []byte(tt.yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := LoadDirectory(path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "TOP-SECRET") {
			t.Errorf("%s: the error shows the secret: %v", tt.name, err)
		}
	}
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte("banks:\n  - id: "+id+"\n    name: Neue Bank\n    country: DE\n    bic: NEUEDEFFXXX\n    baseUrl: https://b.example/psd2\n    products: [instant-sepa-credit-transfers]\n    scaApproach: decoupled\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := LoadDirectory(good)
	if err != nil {
		t.Fatal(err)
	}
	conns, err := d.Connections()
	if err != nil || conns[id].Client.BaseURL != "https://b.example/psd2" || conns[id].product() != ProductInstantSEPA || !conns[id].Decoupled {
		t.Fatalf("connections: %+v %v", conns, err)
	}
}
