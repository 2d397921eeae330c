package client

import (
	"context"
	"io"
	"iter"

	"github.com/bankrail/bankrail/api"
)

// CreatePaymentsReport asks for a PAYMENTS report; poll GetReport.
func (c *Client) CreatePaymentsReport(ctx context.Context, body api.PaymentsReportRequest) (*api.ReportCreated, error) {
	return decode[api.ReportCreated](ctx, c, call{op: opCreatePaymentsReport, body: body})
}

// CreateRefundsReport asks for a REFUNDS report.
func (c *Client) CreateRefundsReport(ctx context.Context, body api.RefundsReportRequest) (*api.ReportCreated, error) {
	return decode[api.ReportCreated](ctx, c, call{op: opCreateRefundsReport, body: body})
}

// CreatePayoutsReport asks for a PAYOUTS report.
func (c *Client) CreatePayoutsReport(ctx context.Context, body api.PayoutsReportRequest) (*api.ReportCreated, error) {
	return decode[api.ReportCreated](ctx, c, call{op: opCreatePayoutsReport, body: body})
}

// CreateAuditLogReport asks for an AUDIT_LOG report.
func (c *Client) CreateAuditLogReport(ctx context.Context, body api.AuditLogReportRequest) (*api.ReportCreated, error) {
	return decode[api.ReportCreated](ctx, c, call{op: opCreateAuditLogReport, body: body})
}

// CreateConnectReport asks for a CONNECT report of one Connect account.
func (c *Client) CreateConnectReport(ctx context.Context, bankAccountID string, body api.ConnectReportRequest) (*api.ReportCreated, error) {
	return decode[api.ReportCreated](ctx, c, call{op: opCreateConnectReport, path: []string{bankAccountID}, body: body})
}

// ListReports reads one page of reports, newest first.
func (c *Client) ListReports(ctx context.Context, params *api.ListReportsParams) (*Page[api.Report], error) {
	return list[api.Report](ctx, c, call{op: opListReports, params: params})
}

// AllReports iterates over every page of ListReports.
func (c *Client) AllReports(ctx context.Context, params *api.ListReportsParams) iter.Seq2[api.Report, error] {
	return all(params, func(p *api.ListReportsParams) **int64 { return &p.Page },
		func(p *api.ListReportsParams) **string { return &p.Cursor },
		func(p *api.ListReportsParams) (*Page[api.Report], error) { return c.ListReports(ctx, p) })
}

// GetReport reads a report (poll until REPORT_AVAILABLE or REPORT_FAILED).
func (c *Client) GetReport(ctx context.Context, id string) (*api.Report, error) {
	return decode[api.Report](ctx, c, call{op: opGetReport, path: []string{id}})
}

// DownloadReport streams a report's CSV file; close it when done. Before
// the report is available it is a 409 CONFLICT *Error.
func (c *Client) DownloadReport(ctx context.Context, id string) (io.ReadCloser, error) {
	a, err := c.exchange(ctx, call{op: opDownloadReport, path: []string{id}, accept: "text/csv", stream: true})
	if err != nil {
		return nil, err
	}
	return a.stream, nil
}
