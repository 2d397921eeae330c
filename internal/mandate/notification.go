package mandate

import (
	"time"

	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/notification"
)

// message builds the notification of event typ about m (and a, for the
// amendment events), sent to the application that created the mandate and
// ordered per mandate. Its body is notification.Mandate (decisions.md):
// Status is the mandate's for mandate events and the amendment's for the
// amendment events (mandate_amended included).
func message(m Mandate, a *Amendment, typ string, at time.Time) (notify.Message, error) {
	body := notification.Mandate{Mandate: m.ID, Status: string(m.Status), Timestamp: at}
	if a != nil {
		body.Amendment, body.Status = a.ID, string(a.Status)
	}
	return notify.Mandate(notify.Target{CustomerID: m.CustomerID, ClientID: m.ClientID}, typ, body)
}
