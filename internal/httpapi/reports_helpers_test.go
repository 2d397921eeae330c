package httpapi_test

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
)

// reportRecord is the report record of the API.
type reportRecord struct {
	ID          string     `json:"id"`
	Type        string     `json:"type"`
	Status      string     `json:"status"`
	CreatedAt   time.Time  `json:"createdAt"`
	GeneratedAt *time.Time `json:"generatedAt"`
}

// period is a report body for the day around the fixture's epoch.
func period(extra map[string]any) map[string]any {
	b := map[string]any{"startDate": apptest.Epoch.Add(-time.Hour).Format(time.RFC3339),
		"endDate": apptest.Epoch.Add(24 * time.Hour).Format(time.RFC3339)}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

// requestReport creates a report and fails the test unless it is 201.
func requestReport(t *testing.T, env *apptest.Env, token, path string, body any) string {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "POST", Path: path, Token: token, Body: body})
	if resp.Status != http.StatusCreated {
		t.Fatalf("POST %s: %d %s", path, resp.Status, resp.Body)
	}
	var created struct {
		ID        string    `json:"id"`
		Status    string    `json:"status"`
		CreatedAt time.Time `json:"createdAt"`
	}
	resp.JSON(t, &created)
	if created.Status != "REPORT_REQUESTED" || resp.Header.Get("Location") != "/reports/"+created.ID {
		t.Fatalf("created %+v, Location %q", created, resp.Header.Get("Location"))
	}
	return created.ID
}

// awaitReport polls GET /reports/{id} until the report's generation ended.
func awaitReport(t *testing.T, env *apptest.Env, token, id string) reportRecord {
	t.Helper()
	var rec reportRecord
	apptest.Eventually(t, "report "+id+" generated", func() bool {
		resp := env.Do(t, apptest.Request{Method: "GET", Path: "/reports/" + id, Token: token})
		if resp.Status != http.StatusOK {
			t.Fatalf("GET /reports/%s: %d %s", id, resp.Status, resp.Body)
		}
		resp.JSON(t, &rec)
		return rec.Status == "REPORT_AVAILABLE" || rec.Status == "REPORT_FAILED"
	})
	return rec
}

// downloadCSV downloads a report and parses it (RFC 4180).
func downloadCSV(t *testing.T, env *apptest.Env, token, id string) ([][]string, []byte) {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "GET", Path: "/reports/" + id + "/download", Token: token})
	if resp.Status != http.StatusOK {
		t.Fatalf("download %s: %d %s", id, resp.Status, resp.Body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
		t.Fatalf("Content-Type %q", ct)
	}
	cd := resp.Header.Get("Content-Disposition")
	if !strings.HasPrefix(cd, `attachment; filename="`) || !strings.HasSuffix(cd, "-"+id+`.csv"`) {
		t.Fatalf("Content-Disposition %q", cd)
	}
	if resp.Header.Get("Content-Length") != strconv.Itoa(len(resp.Body)) {
		t.Fatalf("Content-Length %q, body %d bytes", resp.Header.Get("Content-Length"), len(resp.Body))
	}
	rows, err := csv.NewReader(bytes.NewReader(resp.Body)).ReadAll()
	if err != nil {
		t.Fatalf("parse CSV: %v\n%s", err, resp.Body)
	}
	return rows, resp.Body
}

// byColumn maps each data row to a column name -> value map, keyed by the
// value of key.
func byColumn(t *testing.T, rows [][]string, key string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for _, r := range rows[1:] {
		m := map[string]string{}
		for i, name := range rows[0] {
			m[name] = r[i]
		}
		out[m[key]] = m
	}
	return out
}
