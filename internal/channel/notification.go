package channel

import (
	"time"

	"github.com/bankrail/bankrail/internal/notify"
)

// notificationBody is the wire body of a channel payment notification
// (decisions.md): the exact bytes signed and sent, hence the JSON tags.
type notificationBody struct {
	ChannelPayment string      `json:"channelPayment"`
	Channel        string      `json:"channel"`
	Status         string      `json:"status"`
	Paid           paidBody    `json:"paid"`
	Credited       *paidCredit `json:"credited"`
	Timestamp      time.Time   `json:"timestamp"`
}

type paidBody struct {
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
}

type paidCredit struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// message is the notification typ about p, to the application that created
// ch, ordered per channel.
func message(ch Channel, p Payment, typ string) (notify.Message, error) {
	b := notificationBody{ChannelPayment: p.ID, Channel: ch.ID, Status: string(p.Status),
		Paid: paidBody{Amount: p.Paid.String(), Currency: string(p.Token)}, Timestamp: p.UpdatedAt.UTC()}
	if p.Credited != nil {
		b.Credited = &paidCredit{Amount: p.Credited.Amount, Currency: p.Credited.Currency}
	}
	return notify.New(notify.Target{CustomerID: ch.CustomerID, ClientID: ch.ClientID}, ch.ID, typ, b)
}
