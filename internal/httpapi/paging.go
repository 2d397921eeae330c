package httpapi

import (
	"net/http"
	"strconv"
)

// writePage writes one page of a list: the items as JSON with the paging
// headers every list answers with (page, limit, page-count, total-items).
func writePage[T any](w http.ResponseWriter, items []T, page, limit, total int) {
	h := w.Header()
	h.Set("page", strconv.Itoa(page))
	h.Set("limit", strconv.Itoa(limit))
	h.Set("page-count", strconv.Itoa((total+limit-1)/limit))
	h.Set("total-items", strconv.Itoa(total))
	writeJSON(w, http.StatusOK, items)
}
