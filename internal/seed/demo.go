package seed

import (
	"strings"

	"github.com/bankrail/bankrail/internal/inbox"
)

// The sandbox demo merchant, created in an empty sandbox database when no
// seed file is given. Its credentials are fixed and printed in the startup
// banner so that a newcomer can get a token at once; it never exists in
// production mode.
const (
	DemoCustomerID         = "6a0c3f5e-2b1d-4c8e-9f00-000000000001"
	DemoClientID           = "demo-client"
	DemoClientSecret       = "demo-client-secret"
	DemoUsername           = "merchant@demo.test"
	DemoPassword           = "demo-password"
	DemoNotificationSecret = "demo-notification-secret"
	// DemoEURAccountID and DemoGBPAccountID are the demo merchant's Connect
	// accounts; their IBANs are DemoEURIBAN and DemoGBPIBAN.
	DemoEURAccountID = "6a0c3f5e-2b1d-4c8e-9f00-0000000000e1"
	DemoGBPAccountID = "6a0c3f5e-2b1d-4c8e-9f00-0000000000e2"
	DemoEURIBAN      = "DE04022634126305614967"
	DemoGBPIBAN      = "GB04BRAL62374351421555"
)

// The sandbox's demo operator: a user of the role OPERATOR (the instance's
// operator: snapshot, restore and reset of the whole instance, the bank's
// files), created with the demo merchant so that a developer can try the
// operator's features. It has a customer and an application of its own,
// the way in to the password grant; as the demo merchant's, its
// credentials are fixed, printed and sandbox only.
const (
	DemoOperatorCustomerID   = "6a0c3f5e-2b1d-4c8e-9f00-0000000000f0"
	DemoOperatorClientID     = "demo-operator-client"
	DemoOperatorClientSecret = "demo-operator-client-secret"
	DemoOperatorUsername     = "operator@demo.test"
	DemoOperatorPassword     = "operator-password"
)

// DemoNotificationURL is the demo application's default notification URL:
// the sandbox inbox of the instance at publicURL, which receives, verifies
// and keeps its notifications (GET /sandbox/inbox).
func DemoNotificationURL(publicURL string) string {
	return strings.TrimRight(publicURL, "/") + inbox.Path(DemoClientID)
}

// Demo is the seed of the demo merchant. Its notifications go to the
// sandbox inbox of the instance at publicURL (none when publicURL is empty).
func Demo(publicURL string) File {
	url := ""
	if publicURL != "" {
		url = DemoNotificationURL(publicURL)
	}
	return File{Customers: []Customer{{
		ID:   DemoCustomerID,
		Name: "Demo Shop",
		Applications: []Application{{ClientID: DemoClientID, ClientSecret: DemoClientSecret,
			NotificationSecret: DemoNotificationSecret, NotificationURL: url}},
		Users: []User{{Username: DemoUsername, Password: DemoPassword, Role: "ADMIN"}}, // ADMIN: may reset its own sandbox
		Accounts: []Account{{ID: DemoEURAccountID, Currency: "EUR", IBAN: DemoEURIBAN, Nickname: "Demo EUR"},
			{ID: DemoGBPAccountID, Currency: "GBP", IBAN: DemoGBPIBAN, Nickname: "Demo GBP"}},
	}, DemoOperator()}}
}

// DemoOperator is the seed of the demo operator's customer, application
// and user.
func DemoOperator() Customer {
	return Customer{
		ID:           DemoOperatorCustomerID,
		Name:         "Sandbox operator",
		Applications: []Application{{ClientID: DemoOperatorClientID, ClientSecret: DemoOperatorClientSecret, NotificationSecret: "demo-operator-notification-secret"}},
		Users:        []User{{Username: DemoOperatorUsername, Password: DemoOperatorPassword, Role: "OPERATOR"}},
	}
}
