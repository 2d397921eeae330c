package payment

import (
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/notification"
)

// gatewayMessage is the gateway notification p sends on reaching its
// status (decisions.md: PENDING on BANK_REDIRECT and DELAYED_AT_BANK,
// COMPLETED on COMPLETED, FAILED on the failures; detailedStatus is the
// payment status). ok is false for statuses that send none. It goes to the
// payment's notification URL, else the creating application's, signed with
// that application's secret.
func (l *Lifecycle) gatewayMessage(p Payment) (notify.Message, bool, error) {
	status, ok := notify.GatewayStatus(string(p.Status))
	if !ok {
		return notify.Message{}, false, nil
	}
	body := notification.Gateway{Payment: p.ID, Reference: p.UniqueReference,
		MerchantInternalReference: p.Request.InternalReference, Amount: p.Amount(),
		Status: status, DetailedStatus: string(p.Status), Sender: l.gatewaySender(p)}
	msg, err := notify.Gateway(notify.Target{CustomerID: p.CustomerID, ClientID: p.ClientID,
		URL: p.Request.NotificationURL()}, body)
	return msg, err == nil, err
}

// gatewaySender is the sender of a notification, once the bank reported it.
func (l *Lifecycle) gatewaySender(p Payment) *notification.GatewaySender {
	if p.Sender == nil {
		return nil
	}
	s := &notification.GatewaySender{IBAN: p.Sender.IBAN, Name: p.Sender.Name}
	if p.Sender.SortCode != "" {
		s.SortCode, s.AccountNumber = &p.Sender.SortCode, &p.Sender.AccountNumber
	}
	if b, ok := l.Bank(p); ok {
		s.Bank = notification.Bank{ID: b.ID, Country: b.Country, GroupName: b.Name, BranchName: b.BranchName, BIC8: b.BIC[:8]}
	}
	return s
}
