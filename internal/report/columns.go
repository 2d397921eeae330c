package report

import (
	"context"
	"strconv"
	"time"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/payment"
)

// Headers are the exact header rows of each type's CSV (decisions.md,
// Reports).
var Headers = map[Type][]string{
	Payments: {"id", "createdAt", "updatedAt", "customerId", "status", "amount", "currency", "paymentReference",
		"internalReference", "paymentSystem", "bankId", "transferType"},
	Refunds: {"id", "paymentId", "accountId", "createdAt", "updatedAt", "status", "amount", "currency",
		"externalReference", "eventFee"},
	Payouts: {"id", "accountId", "createdAt", "updatedAt", "status", "amount", "currency", "paymentReference",
		"beneficiaryName", "beneficiaryIban"},
	AuditLog: {"occurredAt", "customerId", "actorType", "actorId", "action", "resourceType", "resourceId",
		"requestId", "ip"},
	Connect: {"transactionId", "type", "operation", "createdAt", "updatedAt", "status", "amount", "currency",
		"paymentId", "paymentReference", "counterpartyName", "counterpartyIban"},
}

// TimeFormat is how times are written: ISO 8601 in UTC, as in the API.
const TimeFormat = time.RFC3339Nano

// hasAllowEmpty reports whether a type's creation takes allowEmpty; the
// others (REFUNDS, PAYOUTS) are generated with the header row alone when
// nothing matches.
func hasAllowEmpty(t Type) bool { return t == Payments || t == AuditLog || t == Connect }

// rowWriter writes one CSV record.
type rowWriter func(record []string) error

// source streams the data rows of one report type.
type source struct {
	any  func(ctx context.Context, s Scope) (bool, error)
	rows func(ctx context.Context, s Scope, w rowWriter) error
}

// noAny is the any of a type without allowEmpty (REFUNDS, PAYOUTS): it is
// never asked.
func noAny(context.Context, Scope) (bool, error) { return false, nil }

// sources returns the source of each type over data.
func sources(data Data, banks *bank.Registry) map[Type]source {
	return map[Type]source{
		Payments: {any: data.AnyPayment, rows: func(ctx context.Context, s Scope, w rowWriter) error {
			return paymentRows(ctx, data, banks, s, w)
		}},
		AuditLog: {any: data.AnyAudit, rows: func(ctx context.Context, s Scope, w rowWriter) error {
			rec := make([]string, len(Headers[AuditLog]))
			var c cells
			return data.AuditLog(ctx, s, func(a AuditRow) error {
				c.reset()
				c.time(a.OccurredAt)
				c.into(&rec[0])
				rec[1], rec[2], rec[3] = a.CustomerID, a.ActorType, a.ActorID
				rec[4], rec[5], rec[6], rec[7], rec[8] = a.Action, a.ResourceType, a.ResourceID, a.RequestID, a.IP
				return w(rec)
			})
		}},
		Refunds: {any: noAny, rows: func(ctx context.Context, s Scope, w rowWriter) error {
			return refundRows(ctx, data, s, w)
		}},
		Payouts: {any: noAny, rows: func(ctx context.Context, s Scope, w rowWriter) error {
			return payoutRows(ctx, data, s, w)
		}},
		Connect: {any: data.AnyConnectTransaction, rows: func(ctx context.Context, s Scope, w rowWriter) error {
			return connectRows(ctx, data, s, w)
		}},
	}
}

// SandboxEventFee is the fee of a refund in the sandbox (minor units).
const SandboxEventFee = 0

// refundRows writes the REFUNDS rows; eventFee is filled only with
// includeEventFees.
func refundRows(ctx context.Context, data Data, s Scope, w rowWriter) error {
	rec := make([]string, len(Headers[Refunds]))
	fee := ""
	if s.EventFees {
		fee = strconv.Itoa(SandboxEventFee)
	}
	var c cells
	return data.Refunds(ctx, s, func(f RefundRow) error {
		c.reset()
		c.time(f.CreatedAt)
		c.time(f.UpdatedAt)
		c.int(f.Amount)
		c.into(&rec[3], &rec[4], &rec[6])
		rec[0], rec[1], rec[2], rec[5] = f.ID, f.PaymentID, f.AccountID, f.Status
		rec[7], rec[8], rec[9] = f.Currency, f.ExternalReference, fee
		return w(rec)
	})
}

// payoutRows writes the PAYOUTS rows; beneficiaryIban is empty for a UK
// account (sort code and account number, which the header has no column for).
func payoutRows(ctx context.Context, data Data, s Scope, w rowWriter) error {
	rec := make([]string, len(Headers[Payouts]))
	var c cells
	return data.Payouts(ctx, s, func(p PayoutRow) error {
		c.reset()
		c.time(p.CreatedAt)
		c.time(p.UpdatedAt)
		c.int(p.Amount)
		c.into(&rec[2], &rec[3], &rec[5])
		rec[0], rec[1], rec[4], rec[6] = p.ID, p.AccountID, p.Status, p.Currency
		rec[7], rec[8], rec[9] = p.PaymentReference, p.BeneficiaryName, p.BeneficiaryIBAN
		return w(rec)
	})
}

// connectRows writes the CONNECT rows: the account's ledger transactions.
func connectRows(ctx context.Context, data Data, s Scope, w rowWriter) error {
	rec := make([]string, len(Headers[Connect]))
	var c cells
	return data.ConnectTransactions(ctx, s, func(t ConnectRow) error {
		c.reset()
		c.time(t.CreatedAt)
		c.time(t.UpdatedAt)
		c.int(t.Amount.Minor())
		c.into(&rec[3], &rec[4], &rec[6])
		rec[0], rec[1], rec[2], rec[5] = t.ID, string(t.Type), string(t.Operation), string(t.Status)
		rec[7], rec[8] = t.Amount.Currency(), t.PaymentID
		rec[9], rec[10], rec[11] = t.Reference, t.Counterparty.Name, t.Counterparty.IBAN
		return w(rec)
	})
}

// paymentRows writes the PAYMENTS rows; the transfer type is derived from
// the payment system and the bank, once per pair (and not looked up again
// while the pair stays the same from row to row).
func paymentRows(ctx context.Context, data Data, banks *bank.Registry, s Scope, w rowWriter) error {
	rec := make([]string, len(Headers[Payments]))
	transfer := map[[2]string]string{}
	var last [2]string
	tt := ""
	var c cells
	return data.Payments(ctx, s, func(p PaymentRow) error {
		if key := [2]string{p.PaymentSystem, p.InstitutionID}; key != last || tt == "" {
			var ok bool
			if tt, ok = transfer[key]; !ok {
				var b *bank.Bank
				if found, ok := banks.Get(p.InstitutionID); ok && p.InstitutionID != "" {
					b = &found
				}
				tt = payment.TransferType(bank.PaymentSystem(p.PaymentSystem), b)
				transfer[key] = tt
			}
			last = key
		}
		c.reset()
		c.time(p.CreatedAt)
		c.time(p.UpdatedAt)
		c.int(p.Amount)
		c.into(&rec[1], &rec[2], &rec[5])
		rec[0], rec[3], rec[4], rec[6] = p.ID, p.CustomerID, p.Status, p.Currency
		rec[7], rec[8] = p.PaymentReference, p.InternalReference
		rec[9], rec[10], rec[11] = p.PaymentSystem, p.InstitutionID, tt
		return w(rec)
	})
}

// numberColumns are the columns bankrail writes itself from numbers and
// times (an amount may be negative: "-300" stays a number). Every other
// column is text and goes through safeText as the row is written
// (textColumns), whoever chose its value: a client's reference, name,
// X-Request-Id or address as much as an id or a status.
var numberColumns = map[string]bool{"occurredAt": true, "createdAt": true, "updatedAt": true, "amount": true, "eventFee": true}

// textColumns are the indexes of each type's text columns (every column
// but numberColumns).
var textColumns = func() map[Type][]int {
	out := map[Type][]int{}
	for t, header := range Headers {
		for i, name := range header {
			if !numberColumns[name] {
				out[t] = append(out[t], i)
			}
		}
	}
	return out
}()

// neutralise makes the text cells of a record of type t safe (safeText).
func neutralise(t Type, rec []string) {
	for _, i := range textColumns[t] {
		rec[i] = safeText(rec[i])
	}
}

// safeText keeps a text cell from being read as a formula by a
// spreadsheet (CSV injection): a cell starting with = + - @ or a tab or
// carriage return gets a leading apostrophe. See docs/reports.md.
func safeText(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}
