package store_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/payment"
)

// Rows written while the domain types carried JSON tags (camelCase keys)
// still read back field for field: the request and sender columns are
// decoded by encoding/json, which matches keys to Go field names without
// regard to case, and every old key is its field's name in another case.
func TestOldPaymentRowsReadBack(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		const id, customer = "63000000-0000-4000-8000-0000000000a1", "63000000-0000-4000-8000-000000000001"
		oldRequest := `{"currency":"EUR","amount":1050,"internalReference":"order-42","paymentReference":"Order 42",` +
			`"payer":{"reference":"cust-1","firstName":"Anna","lastName":"Müller","organisationName":"Org","email":"anna@example.com",` +
			`"accountIdentifiers":{"iban":"DE89370400440532013000","swiftBic":"COBADEFFXXX","sortCode":"040004","accountNumber":"12345678"}},` +
			`"device":{"ip":"203.0.113.7","userAgent":"UA","fingerprint":"fp"},"paymentSystem":"OPEN_BANKING_EU",` +
			`"openBankingEU":{"type":"GOODS","institutionId":"ba4c0276-0000-4000-8000-000000000001","statementDescriptor":"SHOP",` +
			`"validityPeriod":3600,"accountIdentifiers":{"iban":"DE89370400440532013000"}},` +
			`"openBankingUK":{"type":"BILL","institutionId":"x"},` +
			`"beneficiary":{"name":"Test Shop GmbH","accountIdentifiers":{"iban":"DE02120300000000202051"}},` +
			`"communication":{"notifications":{"url":"https://shop.example/n"},"return":{"urls":{"unified":{"url":"https://shop.example/u"},` +
			`"success":{"url":"https://shop.example/s"},"failure":{"url":"https://shop.example/f"},"pending":{"url":"https://shop.example/p"},` +
			`"cancel":{"url":"https://shop.example/c"}},"queryString":"order=42"}},` +
			`"checkout":{"hosted":{"countries":{"available":["DE","AT"]}}},"displayInfo":[{"key":"Order","value":"42"}],` +
			`"termsAndConditionsAccepted":true}`
		oldSender := `{"name":"Anna Müller","iban":"DE89370400440532013000","sortCode":"040004","accountNumber":"12345678"}`
		for _, q := range []string{
			`INSERT INTO customers (id, name, created_at) VALUES ('` + customer + `', 'Shop', 0)`,
			`INSERT INTO customer_tree (ancestor_id, descendant_id, depth) VALUES ('` + customer + `', '` + customer + `', 0)`,
			`INSERT INTO payments (id, customer_id, client_id, user_id, channel, payment_system, status, currency, amount,
				unique_reference, short_code, checkout_token, request, sender, created_at, updated_at)
			VALUES ('` + id + `', '` + customer + `', 'c', 'u', 'hosted', 'OPEN_BANKING_EU', 'NEW_PAYMENT', 'EUR', 1050,
				'REF', 'OLDROW0001', 'tok', '` + oldRequest + `', '` + oldSender + `', 0, 0)`,
		} {
			if err := s.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		p, err := s.Payments().GetByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		amount, validity, yes := int64(1050), int64(3600), true
		url := func(u string) *payment.URL { return &payment.URL{URL: u} }
		want := payment.CreateRequest{Currency: "EUR", Amount: &amount, InternalReference: "order-42", PaymentReference: "Order 42",
			Payer: &payment.Payer{Reference: "cust-1", FirstName: "Anna", LastName: "Müller", OrganisationName: "Org", Email: "anna@example.com",
				AccountIdentifiers: &payment.AccountIdentifiers{IBAN: "DE89370400440532013000", SwiftBic: "COBADEFFXXX", SortCode: "040004", AccountNumber: "12345678"}},
			Device:        &payment.Device{IP: "203.0.113.7", UserAgent: "UA", Fingerprint: "fp"},
			PaymentSystem: bank.OpenBankingEU,
			OpenBankingEU: &payment.OpenBankingEU{Type: payment.TypeGoods, InstitutionID: "ba4c0276-0000-4000-8000-000000000001",
				StatementDescriptor: "SHOP", ValidityPeriod: &validity, AccountIdentifiers: &payment.AccountIdentifiers{IBAN: "DE89370400440532013000"}},
			OpenBankingUK: &payment.OpenBankingUK{Type: payment.TypeBill, InstitutionID: "x"},
			Beneficiary:   &payment.Beneficiary{Name: "Test Shop GmbH", AccountIdentifiers: &payment.AccountIdentifiers{IBAN: "DE02120300000000202051"}},
			Communication: &payment.Communication{Notifications: &payment.Notifications{URL: "https://shop.example/n"},
				Return: &payment.Return{URLs: &payment.ReturnURLs{Unified: url("https://shop.example/u"), Success: url("https://shop.example/s"),
					Failure: url("https://shop.example/f"), Pending: url("https://shop.example/p"), Cancel: url("https://shop.example/c")},
					QueryString: "order=42"}},
			Checkout:                   &payment.Checkout{Hosted: &payment.Hosted{Countries: &payment.Countries{Available: []string{"DE", "AT"}}}},
			DisplayInfo:                []payment.DisplayInfo{{Key: "Order", Value: "42"}},
			TermsAndConditionsAccepted: &yes,
		}
		if !reflect.DeepEqual(p.Request, want) {
			t.Fatalf("old request read back as\n%+v\nwant\n%+v", p.Request, want)
		}
		if p.Sender == nil || *p.Sender != (payment.Sender{Name: "Anna Müller", IBAN: "DE89370400440532013000", SortCode: "040004", AccountNumber: "12345678"}) {
			t.Fatalf("old sender read back as %+v", p.Sender)
		}
		// Written again in today's encoding, it reads back the same.
		p.ID, p.ShortCode = "63000000-0000-4000-8000-0000000000a2", "NEWROW0001"
		p.CreatedAt, p.UpdatedAt = t0, t0
		p.History = []payment.StatusUpdate{{Status: payment.StatusNew, CreatedAt: t0}}
		if err := s.Payments().Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		again, err := s.Payments().GetByID(ctx, p.ID)
		if err != nil || !reflect.DeepEqual(again.Request, want) || *again.Sender != *p.Sender {
			t.Fatalf("rewritten row: %+v %v", again.Request, err)
		}
	})
}
