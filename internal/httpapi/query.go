package httpapi

import (
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
)

// Filters of the list endpoints, by endpoint.
var (
	paymentFilters      = []string{"status", "currency", "internalReference", "paymentReference", "customerId", "createdAt[gte]", "createdAt[lte]", "page", "limit", "cursor"}
	notificationFilters = []string{"paymentId", "status", "createdAt[gte]", "createdAt[lte]", "page", "limit", "cursor"}
	bankFilters         = []string{"country", "paymentSystem"}
	inboxFilters        = []string{"page", "limit"}
)

// listQuery is the query of a list endpoint whose parameters are names. A
// parameter that is present but empty (customerId=) is INVALID_QUERY_PARAM:
// it would otherwise read as "no filter" and list everything, or match
// nothing, where the client meant a value.
func listQuery(r *http.Request, names []string) (url.Values, error) {
	q := r.URL.Query()
	for _, name := range names {
		for _, v := range q[name] {
			if v == "" {
				return q, errs.E(errs.InvalidQueryParam, "%s is empty; give it a value or leave it out.", name)
			}
		}
	}
	return q, nil
}

// uuidParam reads an optional query parameter that must be a uuid.
func uuidParam(q url.Values, name string) (string, error) {
	v := q.Get(name)
	if v != "" && !isUUID(v) {
		return "", errs.E(errs.InvalidQueryParam, "%s %q is not a uuid.", name, v)
	}
	return v, nil
}

// pageParams reads the paging parameters of a list: page from 1 to
// 2147483647 (default 1) and limit from 1 to maxLimit (default def), as the
// document declares them for every list.
func pageParams(q url.Values, def, maxLimit int) (page, limit int, err error) {
	if page, err = intParam(q.Get("page"), "page", 1, 1, math.MaxInt32); err != nil {
		return 0, 0, err
	}
	if limit, err = intParam(q.Get("limit"), "limit", def, 1, maxLimit); err != nil {
		return 0, 0, err
	}
	return page, limit, nil
}

// intParam parses an optional integer query parameter within [lo, hi].
func intParam(v, name string, def, lo, hi int) (int, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, errs.E(errs.InvalidQueryParam, "%s must be an integer from %d to %d, got %q.", name, lo, hi, v)
	}
	return n, nil
}

// timeParam parses an optional ISO 8601 date-time query parameter of q:
// nil when the parameter is absent. A given time is a bound whatever its
// value: 0001-01-01T00:00:00Z is a date like any other (issue 28 item 2).
func timeParam(q url.Values, name string) (*time.Time, error) {
	if !q.Has(name) {
		return nil, nil
	}
	v := q.Get(name)
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return nil, errs.E(errs.InvalidQueryParam, "%s must be an ISO 8601 date-time such as 2026-06-01T09:00:00Z, got %q.", name, v)
	}
	return &t, nil
}
