package mandate

import (
	"time"

	"github.com/bankrail/bankrail/internal/notify"
)

// notificationBody is the wire body of a mandate notification
// (decisions.md): the exact bytes signed and sent, hence the JSON tags.
// Status is the mandate's for mandate events and the amendment's for the
// amendment events (mandate_amended included).
type notificationBody struct {
	Mandate   string    `json:"mandate"`
	Amendment string    `json:"amendment,omitempty"`
	Status    string    `json:"status"`
	Timestamp time.Time `json:"timestamp"`
}

// message builds the notification of event typ about m (and a, for the
// amendment events), sent to the application that created the mandate and
// ordered per mandate.
func message(m Mandate, a *Amendment, typ string, at time.Time) (notify.Message, error) {
	body := notificationBody{Mandate: m.ID, Status: string(m.Status), Timestamp: at.UTC()}
	if a != nil {
		body.Amendment, body.Status = a.ID, string(a.Status)
	}
	return notify.New(notify.Target{CustomerID: m.CustomerID, ClientID: m.ClientID}, m.ID, typ, body)
}
