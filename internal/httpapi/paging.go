package httpapi

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/paging"
)

// listPaging is the paging of a list request: the page number (from 1),
// the page size and, with a cursor, the position the page starts after.
type listPaging struct {
	Page, Limit int
	After       *paging.Position
}

// readPaging reads the paging parameters every list takes: page and limit
// (pageParams; limit def unless given, at most maxLimit) and the cursor,
// which takes the place of page (cursorParam).
func readPaging(q url.Values, def, maxLimit int) (listPaging, error) {
	page, limit, err := pageParams(q, def, maxLimit)
	if err != nil {
		return listPaging{}, err
	}
	page, after, err := cursorParam(q, page)
	if err != nil {
		return listPaging{}, err
	}
	return listPaging{Page: page, Limit: limit, After: after}, nil
}

// writeListOf answers a list: pg, the page the service read with lp (or
// its error err), each item through view, as JSON with the paging headers
// every list answers with (page, limit, page-count, total-items) and, when
// a page follows, the next-cursor and Link headers of the page after it.
func writeListOf[T, V any](w http.ResponseWriter, r *http.Request, lp listPaging, pg paging.Page[T], err error, view func(T) V) error {
	if err != nil {
		return err
	}
	out := make([]V, 0, len(pg.Items))
	for _, it := range pg.Items {
		out = append(out, view(it))
	}
	writePageHeaders(w, r, lp, pg.Total, pg.Next)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// writePageHeaders sets the paging headers of a page read with lp of a
// list of total items: page, limit, page-count, total-items and, when next
// (the position after the page's last item) is set, next-cursor and Link.
func writePageHeaders(w http.ResponseWriter, r *http.Request, lp listPaging, total int, next *paging.Position) {
	if next != nil {
		writeNext(w, r, encodeCursor(lp.Page+1, *next))
	}
	h := w.Header()
	h.Set("page", strconv.Itoa(lp.Page))
	h.Set("limit", strconv.Itoa(lp.Limit))
	h.Set("page-count", strconv.Itoa((total+lp.Limit-1)/lp.Limit))
	h.Set("total-items", strconv.Itoa(total))
}

// A cursor is a position in a list's order (createdAt, then id) and the
// number of the page that starts after it: 8 bytes of Unix microseconds,
// the 16 bytes of a uuid, 4 bytes of page number and 2 reserved, in
// base64url (40 characters). Every string of that form is a position (a
// crafted one is merely a place in the order; what a list shows is still
// limited to what the caller may see), so the document's pattern is the
// whole rule. Every list takes one (the cursor parameter).
const cursorLength = 40

// encodeCursor makes the cursor of the page numbered page, after at.
func encodeCursor(page int, at paging.Position) string {
	var b [30]byte
	binary.BigEndian.PutUint64(b[0:8], uint64(at.CreatedAt.UnixMicro()))
	u, _ := uuid.Parse(at.ID)
	copy(b[8:24], u[:])
	binary.BigEndian.PutUint32(b[24:28], uint32(min(max(page, 1), math.MaxInt32)))
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// decodeCursor reads a cursor: the page number and the position it carries.
func decodeCursor(s string) (int, paging.Position, error) {
	b, derr := base64.RawURLEncoding.DecodeString(s)
	if len(s) != cursorLength || derr != nil || len(b) != 30 {
		return 0, paging.Position{}, errs.E(errs.InvalidQueryParam,
			"cursor %q is not a cursor of this list: pass the next-cursor header of a previous page as it is.", s)
	}
	u, _ := uuid.FromBytes(b[8:24])
	page := int(min(max(binary.BigEndian.Uint32(b[24:28]), 1), math.MaxInt32))
	return page, paging.Position{CreatedAt: time.UnixMicro(int64(binary.BigEndian.Uint64(b[0:8]))).UTC(), ID: u.String()}, nil
}

// cursorParam reads the optional cursor parameter of a list: without one,
// page as given and no position; with one, the page number and the
// position it carries (the page after it; a page parameter is ignored).
func cursorParam(q url.Values, page int) (int, *paging.Position, error) {
	c := q.Get("cursor")
	if c == "" {
		return page, nil, nil
	}
	n, at, err := decodeCursor(c)
	if err != nil {
		return 0, nil, err
	}
	return n, &at, nil
}

// writeNext sets the headers that lead to the next page: next-cursor, and
// a Link of rel "next" to this request with the cursor in place of page.
func writeNext(w http.ResponseWriter, r *http.Request, cursor string) {
	q := r.URL.Query()
	q.Del("page")
	q.Set("cursor", cursor)
	w.Header().Set("next-cursor", cursor)
	w.Header().Set("Link", "<"+r.URL.Path+"?"+q.Encode()+`>; rel="next"`)
}
