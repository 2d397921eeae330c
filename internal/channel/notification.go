package channel

import (
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/notification"
)

// message is the notification typ about p, to the application that created
// ch, ordered per channel. Its body is notification.ChannelPayment
// (decisions.md).
func message(ch Channel, p Payment, typ string) (notify.Message, error) {
	b := notification.ChannelPayment{ChannelPayment: p.ID, Channel: ch.ID, Status: string(p.Status),
		Paid: notification.ChannelPaid{Amount: p.Paid.String(), Currency: string(p.Token)}, Timestamp: p.UpdatedAt}
	if p.Credited != nil {
		b.Credited = &notification.ChannelCredit{Amount: p.Credited.Amount, Currency: p.Credited.Currency}
	}
	return notify.ChannelPayment(notify.Target{CustomerID: ch.CustomerID, ClientID: ch.ClientID}, typ, b)
}
