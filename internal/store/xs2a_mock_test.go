package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/xs2a"
	"github.com/bankrail/bankrail/internal/xs2a/aspsp"
)

// The mock ASPSP's payments: a second POST of the same X-Request-ID gets
// the first payment back; the first answer is kept and a second one is
// read back unchanged; an unknown payment is NOT_FOUND, also when answered.
func TestMockPaymentsCreateOnceAnswerOnce(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		p := aspsp.Payment{ID: uuid.NewString(), BankID: "bank-a", Product: xs2a.ProductSEPA, RequestID: uuid.NewString(),
			Body: xs2a.PaymentInitiation{InstructedAmount: xs2a.Amount{Currency: "EUR", Amount: "10.50"},
				CreditorAccount: xs2a.AccountReference{IBAN: "DE89370400440532013000"}, CreditorName: "Shop"},
			RedirectURI: "https://tpp.example/back", CreatedAt: t0}
		first, err := s.CreateMockPayment(ctx, p)
		if err != nil || first.ID != p.ID || first.Body.InstructedAmount.Amount != "10.50" {
			t.Fatalf("create: %+v %v", first, err)
		}
		again := p
		again.ID = uuid.NewString()
		if got, err := s.CreateMockPayment(ctx, again); err != nil || got.ID != p.ID {
			t.Fatalf("the same request id again: %s %v, want %s", got.ID, err, p.ID)
		}
		at := t0.Add(time.Minute)
		answered, err := s.AnswerMockPayment(ctx, p.BankID, p.ID, "COMPLETED", "ANNA", at)
		if err != nil || answered.Outcome != "COMPLETED" || answered.Holder != "ANNA" || !answered.AnsweredAt.Equal(at) ||
			answered.RedirectURI != p.RedirectURI {
			t.Fatalf("answer: %+v %v", answered, err)
		}
		if kept, err := s.AnswerMockPayment(ctx, p.BankID, p.ID, "CANCELLED_BY_USER", "OTHER", at.Add(time.Minute)); err != nil ||
			kept.Outcome != "COMPLETED" || kept.Holder != "ANNA" || !kept.AnsweredAt.Equal(at) {
			t.Fatalf("a second answer: %+v %v", kept, err)
		}
		if read, err := s.MockPayment(ctx, p.BankID, p.ID); err != nil || read.Outcome != "COMPLETED" {
			t.Fatalf("read: %+v %v", read, err)
		}
		if _, err := s.AnswerMockPayment(ctx, p.BankID, uuid.NewString(), "COMPLETED", "", at); !errs.Is(err, errs.NotFound) {
			t.Fatalf("answer an unknown payment: %v", err)
		}
		if _, err := s.AnswerMockPayment(ctx, "bank-b", p.ID, "COMPLETED", "", at); !errs.Is(err, errs.NotFound) {
			t.Fatalf("answer at another bank: %v", err)
		}
	})
}
