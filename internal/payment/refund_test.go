package payment

import "testing"

func TestRefundabilityOf(t *testing.T) {
	t.Parallel()
	for _, st := range Statuses {
		r := RefundabilityOf(Payment{Status: st})
		if want := st == StatusReceived; r.Available != want {
			t.Errorf("%s: Available = %v, want %v", st, r.Available, want)
		}
		if r.Available != (r.Code == "" && r.Reason == "") {
			t.Errorf("%s: Available %v with code %q reason %q", st, r.Available, r.Code, r.Reason)
		}
		if !r.Available && r.Code != RefundNotReceived {
			t.Errorf("%s: code %q, want %q", st, r.Code, RefundNotReceived)
		}
	}
}
