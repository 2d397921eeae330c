package aspsp

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/bank"
)

// The in-process mock banks (bankrail-bench's baseline): the payer goes to
// the checkout's mock bank page, whose button is the answer, read once.
func TestInProcessAnswersTheButtonOnce(t *testing.T) {
	t.Parallel()
	c := &InProcess{PublicURL: "https://pay.example"}
	a := bank.Authorisation{PaymentID: "p1", Bank: bank.Bank{ID: "bank-a"}, Token: "TOK"}
	address, err := c.Start(context.Background(), a)
	u, perr := url.Parse(address)
	if err != nil || perr != nil || !strings.HasPrefix(address, "https://pay.example/mock-banks/bank-a/authorise/p1?") ||
		u.Query().Get("token") != "TOK" || u.Query().Get("aspspPaymentId") != "p1" {
		t.Fatalf("start: %s %v", address, err)
	}
	if err := c.Record(context.Background(), "bank-a", "p1", "COMPLETED", "ANNA"); err != nil {
		t.Fatal(err)
	}
	if ans, err := c.Answer(context.Background(), a, nil); err != nil || ans.Outcome != "COMPLETED" || ans.Holder != "ANNA" {
		t.Fatalf("answer: %+v %v", ans, err)
	}
	if ans, err := c.Answer(context.Background(), a, nil); err != nil || ans.Outcome != "" {
		t.Fatalf("a second answer without a button: %+v %v", ans, err)
	}
}
