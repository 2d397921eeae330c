package bank

import (
	"context"
	"testing"
)

type fakeSender struct{ name string }

func (fakeSender) Send(context.Context, Transfer) (TransferAnswer, error) {
	return TransferAnswer{State: TransferCompleted}, nil
}

func TestTransferSenderWiring(t *testing.T) {
	t.Parallel()
	var none *Connectors
	if _, ok := none.Transfers(); ok {
		t.Fatal("a nil map sends transfers")
	}
	cs := NewConnectors()
	if _, ok := cs.Transfers(); ok {
		t.Fatal("a new map sends transfers")
	}
	if err := cs.SendTransfersWith(nil); err == nil {
		t.Fatal("a nil sender is wired")
	}
	a := fakeSender{"a"}
	if err := cs.SendTransfersWith(a); err != nil {
		t.Fatal(err)
	}
	if err := cs.SendTransfersWith(fakeSender{"b"}); err == nil {
		t.Fatal("a second sender is wired")
	}
	if s, ok := cs.Transfers(); !ok || s != a {
		t.Fatalf("sender %v", s)
	}
	for st, final := range map[TransferState]bool{TransferPending: false, TransferCompleted: true, TransferFailed: true, TransferRejected: true} {
		if st.Final() != final {
			t.Errorf("%s final %v", st, st.Final())
		}
	}
}
