package seed

import (
	"strings"
	"testing"
)

func TestParseReadsYAMLAndJSON(t *testing.T) {
	t.Parallel()
	yamlDoc := `
customers:
  - id: 6a0c3f5e-2b1d-4c8e-9f00-000000000001
    name: Demo Shop
    applications:
      - clientId: demo-client
        clientSecret: demo-client-secret
    users:
      - username: merchant@demo.test
        password: demo-password
        role: MERCHANT
`
	jsonDoc := `{"customers":[{"id":"6a0c3f5e-2b1d-4c8e-9f00-000000000001","name":"Demo Shop",
	  "applications":[{"clientId":"demo-client","clientSecret":"demo-client-secret"}],
	  "users":[{"username":"merchant@demo.test","password":"demo-password","role":"MERCHANT"}]}]}`
	for name, doc := range map[string]string{"yaml": yamlDoc, "json": jsonDoc} {
		f, err := Parse([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(f.Customers) != 1 || f.Customers[0].Applications[0].ClientID != "demo-client" || f.Customers[0].Users[0].Role != "MERCHANT" {
			t.Fatalf("%s: parsed %+v", name, f)
		}
	}
}

func TestParseRejectsUnknownKeys(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte("customers:\n  - name: x\n    aplications: []\n"))
	if err == nil || !strings.Contains(err.Error(), "aplications") {
		t.Fatalf("Parse with a typo = %v, want an error naming the key", err)
	}
}
