package statement

import (
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/camt"
	"github.com/bankrail/bankrail/internal/ids"
)

// TestClaims: only entries of incoming funds that can name no outgoing
// transfer go without a claim.
func TestClaims(t *testing.T) {
	id := ids.New()
	credit := func(ts ...camt.Transaction) camt.Entry { return camt.Entry{Credit: true, Transactions: ts} }
	for _, c := range []struct {
		name string
		e    camt.Entry
		want bool
	}{
		{"a credit", credit(camt.Transaction{Credit: true}), false},
		{"a credit of an end-to-end id that is no bankrail id", credit(camt.Transaction{Credit: true, EndToEndID: "NOTPROVIDED"}), false},
		{"a batch of credits", credit(camt.Transaction{Credit: true}, camt.Transaction{Credit: true, EndToEndID: "E2E-1"}), false},
		{"no transaction", camt.Entry{Credit: true}, true},
		{"a debit", camt.Entry{Transactions: []camt.Transaction{{}}}, true},
		{"a return", credit(camt.Transaction{Credit: true, Return: true}), true},
		{"an end-to-end id that is a bankrail id", credit(camt.Transaction{Credit: true, EndToEndID: id}), true},
		{"one without its dashes", credit(camt.Transaction{Credit: true, EndToEndID: strings.ReplaceAll(id, "-", "")}), true},
		{"one in capitals", credit(camt.Transaction{Credit: true, EndToEndID: strings.ToUpper(id)}), true},
		{"a batch with a debit", credit(camt.Transaction{Credit: true}, camt.Transaction{}), true},
	} {
		if got := claims(c.e); got != c.want {
			t.Errorf("%s: claims %t, want %t", c.name, got, c.want)
		}
	}
}
