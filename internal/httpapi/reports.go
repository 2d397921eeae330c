package httpapi

import (
	"net/http"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/report"
	"github.com/bankrail/bankrail/internal/webguard"
	"github.com/bankrail/bankrail/internal/wire"
)

// reportFilters are the query parameters of GET /reports.
var reportFilters = []string{"customerId", "page", "limit", "cursor"}

// createReport serves the five POST /reports/... endpoints: decode reads
// the endpoint's body into the domain input. 201 with {id, status,
// createdAt} and Location: /reports/{id}.
func (s *Server) createReport(decode func(w http.ResponseWriter, r *http.Request) (report.Input, error)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		in, err := decode(w, r)
		if err != nil {
			return err
		}
		who := principal(r)
		in.ViewerID, in.ClientID, in.UserID = who.CustomerID, who.ClientID, who.UserID
		rep, err := s.Reports.Create(r.Context(), in)
		if err != nil {
			return err
		}
		w.Header().Set("Location", "/reports/"+rep.ID)
		writeJSON(w, http.StatusCreated, api.ReportCreated{ID: rep.ID, Status: api.ReportStatus(rep.Status), CreatedAt: rep.CreatedAt})
		return nil
	}
}

// reportBody decodes a creation body of type B and converts it.
func reportBody[B any](s *Server, conv func(*http.Request, B) report.Input) func(http.ResponseWriter, *http.Request) (report.Input, error) {
	return func(w http.ResponseWriter, r *http.Request) (report.Input, error) {
		var b B
		if err := s.decodeJSON(w, r, &b); err != nil {
			return report.Input{}, err
		}
		return conv(r, b), nil
	}
}

// creation is one report creation endpoint.
type creation struct {
	pattern string
	handler handlerFunc
}

// reportCreations are the creation endpoints.
func (s *Server) reportCreations() []creation {
	return []creation{
		{"POST /reports/payments", s.createReport(reportBody(s, func(_ *http.Request, b api.PaymentsReportRequest) report.Input {
			return wire.PaymentsReport(b)
		}))},
		{"POST /reports/refund", s.createReport(reportBody(s, func(_ *http.Request, b api.RefundsReportRequest) report.Input {
			return wire.RefundsReport(b)
		}))},
		{"POST /reports/payouts", s.createReport(reportBody(s, func(_ *http.Request, b api.PayoutsReportRequest) report.Input {
			return wire.PayoutsReport(b)
		}))},
		{"POST /reports/auditlog", s.createReport(reportBody(s, func(_ *http.Request, b api.AuditLogReportRequest) report.Input {
			return wire.AuditLogReport(b)
		}))},
		{"POST /reports/connect/{bankAccountId}", s.createReport(reportBody(s, func(r *http.Request, b api.ConnectReportRequest) report.Input {
			return wire.ConnectReport(r.PathValue("bankAccountId"), b)
		}))},
	}
}

// reportView is the report record.
func reportView(r report.Report) api.Report {
	out := api.Report{ID: r.ID, Type: api.ReportType(r.Type), Status: api.ReportStatus(r.Status), CreatedAt: r.CreatedAt}
	if !r.GeneratedAt.IsZero() {
		out.GeneratedAt = &r.GeneratedAt
	}
	return out
}

// listReports serves GET /reports: newest first, with the paging headers.
func (s *Server) listReports(w http.ResponseWriter, r *http.Request) error {
	q, err := listQuery(r, reportFilters)
	if err != nil {
		return err
	}
	lp, err := readPaging(q, report.DefaultPageLimit, report.MaxPageLimit)
	if err != nil {
		return err
	}
	f := report.ListFilter{Page: lp.Page, Limit: lp.Limit, After: lp.After}
	if f.CustomerID, err = uuidParam(q, "customerId"); err != nil {
		return err
	}
	pg, err := s.Reports.List(r.Context(), principal(r).CustomerID, f)
	return writeListOf(w, r, lp, pg, err, reportView)
}

// getReport serves GET /reports/{id}, for polling.
func (s *Server) getReport(w http.ResponseWriter, r *http.Request) error {
	rep, err := s.Reports.Get(r.Context(), principal(r).CustomerID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, reportView(rep))
	return nil
}

// downloadReport serves GET /reports/{id}/download: the CSV file streamed
// from the database (webguard.ServeReport, as the dashboard serves it).
func (s *Server) downloadReport(w http.ResponseWriter, r *http.Request) error {
	rep, file, err := s.Reports.Open(r.Context(), principal(r).CustomerID, r.PathValue("id"))
	if err != nil {
		return err
	}
	webguard.ServeReport(r.Context(), w, s.log, requestIDFrom(r.Context()), rep, file)
	return nil
}
