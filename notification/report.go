package notification

import (
	"encoding/json"
	"fmt"
)

// TypeReportAvailable is the X-Service-Type sent when a report's generation
// ended (status REPORT_AVAILABLE, or REPORT_FAILED).
const TypeReportAvailable = "report_available"

// ReportBody decodes the body of a report_available notification (n.Report
// holds it too, when n came from Parse).
func (n Notification) ReportBody() (Report, error) {
	var r Report
	if n.Type != TypeReportAvailable {
		return r, fmt.Errorf("notification: type %q is not %s", n.Type, TypeReportAvailable)
	}
	if err := json.Unmarshal(n.Raw, &r); err != nil {
		return r, fmt.Errorf("notification: decode %s: %w", TypeReportAvailable, err)
	}
	return r, nil
}
