package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/inbox"
	"github.com/bankrail/bankrail/internal/store"
)

func TestSandboxInboxKeepsTheNewestAndOnlyTheViewers(t *testing.T) {
	eachNotifyStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for i := range 5 {
			e := inbox.Entry{ID: fmt.Sprintf("40000000-0000-4000-8000-00000000000%d", i), CustomerID: nCustomer, ApplicationID: nApp,
				NotificationID: fmt.Sprintf("n%d", i), Type: "test", ReceivedAt: t0.Add(time.Duration(i) * time.Second),
				Headers: map[string]string{"X-Service-Signed": "ab"}, Body: []byte(`{}`), SignatureValid: i%2 == 0}
			err := s.InTx(ctx, func(tx *store.Tx) error {
				if err := tx.Inbox().Add(ctx, e); err != nil {
					return err
				}
				return tx.Inbox().Trim(ctx, nApp, 3)
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		p, err := s.Inbox().List(ctx, nCustomer, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		if p.TotalItems != 3 || len(p.Items) != 3 || p.Items[0].NotificationID != "n4" || p.Items[2].NotificationID != "n2" {
			t.Fatalf("kept %d: %+v", p.TotalItems, p.Items)
		}
		if e := p.Items[0]; !e.SignatureValid || e.ClientID != "n-client" || e.Headers["X-Service-Signed"] != "ab" ||
			string(e.Body) != `{}` || !e.ReceivedAt.Equal(t0.Add(4*time.Second)) {
			t.Fatalf("entry %+v", e)
		}
		if p, _ := s.Inbox().List(ctx, nCustomer, 2, 2); len(p.Items) != 1 || p.Items[0].NotificationID != "n2" {
			t.Fatalf("page 2: %+v", p.Items)
		}
		if p, _ := s.Inbox().List(ctx, nStranger, 1, 10); p.TotalItems != 0 || len(p.Items) != 0 {
			t.Fatalf("a stranger sees %+v", p)
		}
	})
}
