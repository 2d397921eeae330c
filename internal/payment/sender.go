package payment

import (
	"crypto/sha256"
	"strings"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/iso"
)

// SandboxHolderName is the account holder a mock bank reports for a payer
// without a name.
const SandboxHolderName = "SANDBOX ACCOUNT HOLDER"

// ReportedSender is the paying account a mock bank reports once the payer
// has authorised: the holder name given (default the payer's name, upper
// case, as banks print it), and the payer's IBAN when the merchant sent one,
// else an account of bank b made up from the payment id (valid IBAN; sort
// code and account number in the United Kingdom).
func ReportedSender(p Payment, b bank.Bank, holder string) Sender {
	name := strings.TrimSpace(holder)
	if name == "" {
		name = strings.ToUpper(p.Request.Payer.Name())
	}
	if name == "" {
		name = SandboxHolderName
	}
	iban := p.Request.PayerIBAN()
	if iban == "" {
		iban = mockIBAN(p.ID, b)
	}
	s := Sender{Name: name, IBAN: iban}
	if iso.IBANCountry(iban) == "GB" && len(iban) == 22 {
		s.SortCode, s.AccountNumber = iban[8:14], iban[14:]
	}
	return s
}

// mockIBAN makes up a valid IBAN at bank b, the same for the same seed.
func mockIBAN(seed string, b bank.Bank) string {
	n, ok := iso.IBANLength(b.Country)
	if !ok {
		n = 22
	}
	var bban strings.Builder
	switch b.Country {
	case "GB", "IE", "NL": // the BBAN starts with the bank's letters
		bban.WriteString(b.BIC[:4])
	}
	sum := sha256.Sum256([]byte(seed))
	for i := 0; bban.Len() < n-4; i++ {
		bban.WriteByte('0' + sum[i%len(sum)]%10)
	}
	return iso.MakeIBAN(b.Country, bban.String())
}
