package wire

import (
	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/report"
)

// PaymentsReport converts the body of POST /reports/payments.
func PaymentsReport(b api.PaymentsReportRequest) report.Input {
	return report.Input{Type: report.Payments, StartDate: given(b.StartDate), EndDate: given(b.EndDate), CustomerID: b.CustomerID,
		AllowEmpty: b.AllowEmpty}
}

// RefundsReport converts the body of POST /reports/refund.
func RefundsReport(b api.RefundsReportRequest) report.Input {
	return report.Input{Type: report.Refunds, StartDate: given(b.StartDate), EndDate: given(b.EndDate), CustomerID: b.CustomerID,
		AccountID: b.AccountID, IncludeEventFees: b.IncludeEventFees}
}

// PayoutsReport converts the body of POST /reports/payouts.
func PayoutsReport(b api.PayoutsReportRequest) report.Input {
	return report.Input{Type: report.Payouts, StartDate: given(b.StartDate), EndDate: given(b.EndDate), CustomerID: b.CustomerID,
		AccountID: b.AccountID}
}

// AuditLogReport converts the body of POST /reports/auditlog.
func AuditLogReport(b api.AuditLogReportRequest) report.Input {
	return report.Input{Type: report.AuditLog, StartDate: given(b.StartDate), EndDate: given(b.EndDate), CustomerID: b.CustomerID,
		AllowEmpty: b.AllowEmpty}
}

// ConnectReport converts the body of POST /reports/connect/{bankAccountId}.
func ConnectReport(bankAccountID string, b api.ConnectReportRequest) report.Input {
	in := report.Input{Type: report.Connect, BankAccountID: bankAccountID, StartDate: given(b.StartDate), EndDate: given(b.EndDate),
		AllowEmpty: b.AllowEmpty}
	if b.TransactionTypes != nil {
		types := make([]string, len(*b.TransactionTypes))
		for i, t := range *b.TransactionTypes {
			types[i] = string(t)
		}
		in.TransactionTypes = &types
	}
	if b.DateFilterType != nil {
		f := string(*b.DateFilterType)
		in.DateFilterType = &f
	}
	return in
}

// given is a required string of a body: absent (empty after decoding) is
// nil, so that the service reports it as VALUE_REQUIRED.
func given(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
