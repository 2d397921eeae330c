package webguard

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/report"
)

// DownloadTimeout bounds how long one report download may take: the
// servers' write timeouts are meant for JSON answers and pages, not files
// of hundreds of MB.
const DownloadTimeout = time.Hour

// ServeReport answers a report download, in the API (GET
// /reports/{id}/download) and the dashboard alike: rep's CSV file, read from
// file as it is sent (streamed from the database and decompressed on the
// way, never whole in memory), then closed. The status is sent before the
// file, so a copy that fails midway leaves the client a short file (against
// Content-Length) and is logged with requestID.
func ServeReport(ctx context.Context, w http.ResponseWriter, log *slog.Logger, requestID string, rep report.Report, file io.ReadCloser) {
	defer file.Close()
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(DownloadTimeout))
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-%s.csv"`, strings.ToLower(string(rep.Type)), rep.ID))
	h.Set("Content-Length", fmt.Sprint(rep.Size))
	h.Set("Cache-Control", "private, no-store")
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, file); err != nil {
		log.WarnContext(ctx, "report download interrupted", "report", rep.ID, "err", err, "request_id", requestID)
	}
}
