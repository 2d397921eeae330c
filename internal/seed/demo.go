package seed

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
)

// Demo is the seed of the demo merchant.
func Demo() File {
	return File{Customers: []Customer{{
		ID:           DemoCustomerID,
		Name:         "Demo Shop",
		Applications: []Application{{ClientID: DemoClientID, ClientSecret: DemoClientSecret, NotificationSecret: DemoNotificationSecret}},
		Users:        []User{{Username: DemoUsername, Password: DemoPassword, Role: "MERCHANT"}},
	}}}
}
