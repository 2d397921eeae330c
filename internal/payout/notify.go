package payout

import (
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/notification"
)

// payoutNotification is payout_confirmed (COMPLETED) or payout_failed
// (FAILED, REJECTED) of p, to the creator's application.
func payoutNotification(p Payout) (notify.Message, error) {
	return notify.Payout(notify.Target{CustomerID: p.CustomerID, ClientID: p.ClientID},
		notification.Payout{Payout: p.ID, AccountID: p.AccountID, Amount: p.Amount, Currency: p.Currency,
			PaymentReference: p.PaymentReference, Status: string(p.Status), Timestamp: p.UpdatedAt})
}

// verificationNotification is account_holder_verification_result_completed of v.
func verificationNotification(p Payout, v Verification) (notify.Message, error) {
	return notify.AccountHolderVerification(notify.Target{CustomerID: p.CustomerID, ClientID: p.ClientID},
		notification.AccountHolderVerification{AccountHolderVerification: v.ID, TransactionID: p.ID, Status: string(v.Status),
			Result: string(v.Result), Timestamp: v.ExecutedAt})
}
