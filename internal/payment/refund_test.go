package payment

import "testing"

func TestRefundabilityOf(t *testing.T) {
	t.Parallel()
	for _, st := range Statuses {
		r := RefundabilityOf(Payment{Status: st, ConnectAccountID: "acct"})
		if want := st == StatusReceived || st == StatusSettled; r.Available != want {
			t.Errorf("%s: Available = %v, want %v", st, r.Available, want)
		}
		if r.Available != (r.Code == "" && r.Reason == "") {
			t.Errorf("%s: Available %v with code %q reason %q", st, r.Available, r.Code, r.Reason)
		}
		if !r.Available && r.Code != RefundNotReceived {
			t.Errorf("%s: code %q, want %q", st, r.Code, RefundNotReceived)
		}
		if r := RefundabilityOf(Payment{Status: st}); r.Available || r.Code != RefundNoConnectAccount {
			t.Errorf("%s without a Connect account: %+v", st, r)
		}
	}
}

func TestRefundabilityAt(t *testing.T) {
	t.Parallel()
	amount := int64(1000)
	p := Payment{Status: StatusReceived, ConnectAccountID: "acct", Request: CreateRequest{Amount: &amount}}
	for _, tc := range []struct {
		name                string
		status              Status
		refunded, available int64
		code                string
	}{
		{"nothing refunded, funds there", StatusReceived, 0, 1000, ""},
		{"settled, partly refunded", StatusSettled, 400, 600, ""},
		{"not received", StatusCompleted, 0, 1000, RefundNotReceived},
		{"fully refunded", StatusReceived, 1000, 5000, RefundFullyRefunded},
		{"account below what is left", StatusReceived, 100, 899, RefundInsufficientFunds},
	} {
		p.Status = tc.status
		r := RefundabilityAt(p, tc.refunded, tc.available)
		if r.Code != tc.code || r.Available != (tc.code == "") || (tc.code != "") == (r.Reason == "") {
			t.Errorf("%s: %+v, want code %q", tc.name, r, tc.code)
		}
	}
}
