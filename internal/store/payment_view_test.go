package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/payment"
)

// detailsInputs is everything the payment details record reads of a
// payment (internal/httpapi's detailsOf and the refund rule), so that a
// payment read from its view columns can be compared with the payment
// read whole.
type detailsInputs struct {
	ID, CustomerID, Currency, Internal, Reference, Unique, Connect string
	Amount                                                         int64
	Type                                                           payment.Type
	System                                                         bank.PaymentSystem
	Scheme                                                         payment.SchemeDetails
	Account                                                        string // ReceivingAccountOf, printed
	Email, IP, Fingerprint                                         string
	Status                                                         payment.Status
	History                                                        string
	Sender                                                         payment.Sender
	HasSender, Expected                                            bool
	Created, Updated                                               time.Time
}

func inputsOf(p payment.Payment, banks *bank.Registry) detailsInputs {
	in := detailsInputs{ID: p.ID, CustomerID: p.CustomerID, Currency: p.Request.Currency, Internal: p.Request.InternalReference,
		Reference: p.Request.PaymentReference, Unique: p.UniqueReference, Connect: p.ConnectAccountID, Amount: p.Amount(),
		Type: p.Type(), System: p.System(), Scheme: p.Scheme(), Status: p.Status, Expected: p.Expected(),
		Created: p.CreatedAt, Updated: p.UpdatedAt}
	acc := payment.ReceivingAccountOf(p, banks)
	in.Account = sprint(acc.AccountID, acc.BeneficiaryID, acc.Name, acc.Identifiers, acc.Identifications, acc.Country, acc.Bank)
	if p.Request.Payer != nil {
		in.Email = p.Request.Payer.Email
	}
	if p.Request.Device != nil {
		in.IP, in.Fingerprint = p.Request.Device.IP, p.Request.Device.Fingerprint
	}
	if p.Sender != nil {
		in.Sender, in.HasSender = *p.Sender, true
	}
	in.History = sprint(p.History)
	return in
}

// A payment read from its view columns (GetView, ListPage) gives the
// details record exactly what the whole payment gives, for payments with
// every field, none, either scheme, without a scheme object, with a
// sender and after a move; a row written before the view columns is read
// from its JSON.
func TestPaymentView(t *testing.T) {
	t.Parallel()
	banks := bank.Default()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		shop := identity.Customer{ID: "23000000-0000-4000-8000-000000000001", Name: "Shop", CreatedAt: t0}
		if err := s.CreateCustomer(ctx, shop); err != nil {
			t.Fatal(err)
		}
		full := testPayment("44000000-0000-4000-8000-000000000001", shop.ID, "VIEW000001", t0)
		full.Request.Payer = &payment.Payer{Reference: "r", FirstName: "Anna", LastName: "Müller", Email: "anna@example.com"}
		full.Request.Device = &payment.Device{IP: "203.0.113.7", UserAgent: "UA", Fingerprint: "fp"}
		full.Request.OpenBankingEU = &payment.OpenBankingEU{Type: payment.TypeGoods, InstitutionID: "ba4c0276-0000-4000-8000-000000000001"}
		full.Request.Beneficiary = &payment.Beneficiary{Name: "Shop GmbH",
			AccountIdentifiers: &payment.AccountIdentifiers{IBAN: "DE89370400440532013000", SwiftBic: "RHVBDEFF"}}
		full.Sender = &payment.Sender{Name: "ANNA", IBAN: "GB82WEST12345698765432", SortCode: "123456", AccountNumber: "98765432"}
		bare := testPayment("44000000-0000-4000-8000-000000000002", shop.ID, "VIEW000002", t0)
		bare.Request.OpenBankingEU = nil
		uk := testPayment("44000000-0000-4000-8000-000000000003", shop.ID, "VIEW000003", t0.Add(time.Second))
		uk.Request.Currency, uk.Request.PaymentSystem, uk.Request.OpenBankingEU = "GBP", bank.OpenBankingUK, nil
		uk.Request.OpenBankingUK = &payment.OpenBankingUK{Type: payment.TypeBill}
		uk.Request.Beneficiary = &payment.Beneficiary{Name: "Shop Ltd", AccountIdentifiers: &payment.AccountIdentifiers{SortCode: "404784", AccountNumber: "70872490"}}
		uk.ConnectAccountID = ""
		emptyScheme := testPayment("44000000-0000-4000-8000-000000000004", shop.ID, "VIEW000004", t0)
		emptyScheme.Request.Beneficiary = &payment.Beneficiary{} // present but empty
		all := []payment.Payment{full, bare, uk, emptyScheme}
		for _, p := range all {
			if err := s.Payments().Create(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		// A move: the payer picks a bank; the bank reports the sender.
		moved := uk
		moved.Request.OpenBankingUK = &payment.OpenBankingUK{Type: payment.TypeBill, InstitutionID: "ba4c0826-0000-4000-8000-000000000001"}
		moved.Status, moved.UpdatedAt = payment.StatusBankRedirect, t0.Add(time.Minute)
		moved.History = append(moved.History, payment.StatusUpdate{Status: payment.StatusBankRedirect, CreatedAt: moved.UpdatedAt})
		if err := s.Payments().Move(ctx, payment.Change{Payment: moved, From: payment.StatusNew, Stored: 1}); err != nil {
			t.Fatal(err)
		}
		if err := s.Payments().SetSender(ctx, bare.ID, payment.Sender{Name: "B", IBAN: "DE89370400440532013000"}, t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		// A row as written before the view columns: only its JSON is right.
		write, _ := s.Pools()
		if _, err := write.ExecContext(ctx, `UPDATE payments SET view_columns = 0, payer_email = '', beneficiary_name = '',
			beneficiary_iban = '', sender_name = NULL WHERE id = $1`, full.ID); err != nil {
			t.Fatal(err)
		}
		page, err := s.Payments().ListPage(ctx, shop.ID, payment.ListFilter{Page: 1, Limit: 10})
		if err != nil || len(page.Items) != len(all) {
			t.Fatalf("list: %d items, %v", len(page.Items), err)
		}
		listed := map[string]payment.Payment{}
		for _, it := range page.Items {
			listed[it.ID] = it.Payment
		}
		for _, p := range all {
			whole, err := s.Payments().GetByID(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			view, err := s.Payments().GetView(ctx, shop.ID, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			want := inputsOf(whole, banks)
			if got := inputsOf(view.Payment, banks); got != want {
				t.Errorf("payment %s read from its view:\n got %+v\nwant %+v", p.ID, got, want)
			}
			if got := inputsOf(listed[p.ID], banks); got != want {
				t.Errorf("payment %s listed:\n got %+v\nwant %+v", p.ID, got, want)
			}
		}
		if _, err := s.Payments().GetView(ctx, "23000000-0000-4000-8000-0000000000ff", full.ID); err == nil {
			t.Fatal("a stranger reads the view")
		}
		var views int
		if err := write.QueryRowContext(ctx, `SELECT COUNT(*) FROM payments WHERE view_columns = 1 AND customer_id = $1`, shop.ID).Scan(&views); err != nil || views != 3 {
			t.Fatalf("%d rows with view columns, %v", views, err)
		}
	})
}

func sprint(v ...any) string { return fmt.Sprint(v...) }
