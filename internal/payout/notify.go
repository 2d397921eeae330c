package payout

import (
	"github.com/bankrail/bankrail/internal/notify"
)

// payoutNotification is payout_confirmed (COMPLETED) or payout_failed
// (FAILED, REJECTED) of p, to the creator's application.
func payoutNotification(p Payout) (notify.Message, error) {
	typ := "payout_failed"
	if p.Status == Completed {
		typ = "payout_confirmed"
	}
	return notify.New(notify.Target{CustomerID: p.CustomerID, ClientID: p.ClientID}, p.ID, typ,
		map[string]any{"payout": p.ID, "accountId": p.AccountID, "amount": p.Amount, "currency": p.Currency,
			"paymentReference": p.PaymentReference, "status": string(p.Status), "timestamp": p.UpdatedAt.UTC()})
}

// verificationNotification is account_holder_verification_result_completed of v.
func verificationNotification(p Payout, v Verification) (notify.Message, error) {
	return notify.New(notify.Target{CustomerID: p.CustomerID, ClientID: p.ClientID}, p.ID,
		"account_holder_verification_result_completed",
		map[string]any{"accountHolderVerification": v.ID, "transactionId": p.ID, "status": string(v.Status),
			"result": string(v.Result), "timestamp": v.ExecutedAt.UTC()})
}
