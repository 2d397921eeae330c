package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/channel"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/event"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/store"
)

// A deposit's event-log entries are written in the transaction of its
// change, on both engines: detection with the deposit, confirmation with the
// completion and its credit; a confirmation that rolls back leaves neither
// its entry nor its credit.
func TestChannelPaymentEventsShareTheirTransaction(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		shop := identity.Customer{ID: "72000000-0000-4000-8000-000000000002", Name: "Shop", CreatedAt: t0}
		if err := s.CreateCustomer(ctx, shop); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateApplication(ctx, identity.Application{ID: "72000000-0000-4000-8000-0000000000c1", CustomerID: shop.ID,
			ClientID: "channel-client", ClientSecretHash: "x", NotificationSecret: "s", CreatedAt: t0}); err != nil {
			t.Fatal(err)
		}
		ch := channel.Channel{ID: "72000000-0000-4000-8000-0000000000d1", CustomerID: shop.ID, ClientID: "channel-client",
			Token: channel.USDC, Network: channel.ETH, Currency: "EUR", Status: channel.Active, EndUserReference: "u", CreatedAt: t0}
		ch.Address = channel.Address(ch.Network, ch.ID)
		amount, err := channel.ParseAmount("10")
		if err != nil {
			t.Fatal(err)
		}
		p := channel.Payment{ID: "72000000-0000-4000-8000-0000000000e1", ChannelID: ch.ID, CustomerID: shop.ID, Status: channel.Processing,
			EndUserReference: "u", Hash: "0x" + strings.Repeat("ab", 32), Paid: amount, Token: ch.Token, DetectedAt: t0, CreatedAt: t0, UpdatedAt: t0}
		if err := s.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.Channels().Create(ctx, ch); err != nil {
				return err
			}
			return tx.ChannelPayments().Create(ctx, p)
		}); err != nil {
			t.Fatal(err)
		}
		log := func() string {
			t.Helper()
			evs, err := s.Events().List(ctx, shop.ID, event.Filter{SubjectType: channel.SubjectPayment, SubjectID: p.ID})
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, e := range evs {
				out = append(out, e.Type+" "+e.Status)
			}
			return strings.Join(out, ",")
		}
		if got := log(); got != "channel_payment_detected PROCESSING" {
			t.Fatalf("after detection: %s", got)
		}
		at := t0.Add(channel.ConfirmAfter + time.Second)
		boom := errors.New("boom")
		err = s.InTx(ctx, func(tx *store.Tx) error {
			if _, err := channel.Confirm(ctx, tx, ch, p, at); err != nil {
				return err
			}
			return boom // something later in the unit of work fails
		})
		if !errors.Is(err, boom) {
			t.Fatalf("rolled back confirmation: %v", err)
		}
		if got := log(); got != "channel_payment_detected PROCESSING" {
			t.Fatalf("after a rolled back confirmation: %s", got)
		}
		if stored, err := s.ChannelPayments().GetByID(ctx, p.ID); err != nil || stored.Status != channel.Processing {
			t.Fatalf("after a rolled back confirmation: %+v, %v", stored, err)
		}
		if err := s.InTx(ctx, func(tx *store.Tx) error { _, err := channel.Confirm(ctx, tx, ch, p, at); return err }); err != nil {
			t.Fatal(err)
		}
		if got := log(); got != "channel_payment_detected PROCESSING,channel_payment_completed COMPLETED" {
			t.Fatalf("after confirmation: %s", got)
		}
		// A second confirmation (another instance) is CONFLICT and writes no second entry.
		if err := s.InTx(ctx, func(tx *store.Tx) error { _, err := channel.Confirm(ctx, tx, ch, p, at); return err }); err == nil {
			t.Fatal("a second confirmation was saved")
		}
		if got := log(); strings.Count(got, "completed") != 1 {
			t.Fatalf("after a second confirmation: %s", got)
		}
	})
}
