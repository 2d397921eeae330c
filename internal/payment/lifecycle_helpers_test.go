package payment

import (
	"encoding/json"

	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/notification"
)

type notifyMessage = notify.Message

// fataler is what testing.TB and rapid.T share.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// decodeGateway decodes the body of a gateway message.
func decodeGateway(t fataler, m notify.Message) notification.Gateway {
	t.Helper()
	var g notification.Gateway
	if err := json.Unmarshal(m.Body, &g); err != nil {
		t.Fatalf("decode %s: %v", m.Body, err)
	}
	if m.Type != notification.TypeGateway || m.ClientID == "" || m.CustomerID == "" {
		t.Fatalf("message %+v is not a gateway notification of the payment's application", m)
	}
	return g
}
