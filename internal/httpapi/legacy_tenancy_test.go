package httpapi_test

// The legacy API's reads and changes of a payment in the tenancy matrix:
// another customer's payment is 404 in the legacy shape; READ_ONLY cannot
// cancel or refund it (403).
func init() {
	tenancyCases = append(tenancyCases,
		tenancyCase{Route: "GET /legacy/payments/{id}", Resource: "payment", OK: 200, Legacy: true,
			Path: func(r owned) string { return "/legacy/payments/" + r.ID }},
		tenancyCase{Route: "POST /legacy/payments/{id}/cancel", Resource: "payment", OK: 200, Write: true, Legacy: true,
			Path: func(r owned) string { return "/legacy/payments/" + r.ID + "/cancel" }},
		tenancyCase{Route: "POST /legacy/payments/{id}/request-refund", Resource: "received payment", OK: 201, Write: true, Legacy: true,
			Path: func(r owned) string { return "/legacy/payments/" + r.ID + "/request-refund" },
			Body: map[string]any{"amount": 100, "externalReference": "T-legacy"}},
	)
}
