package httpapi

import (
	"net/http"
	"net/url"

	"github.com/bankrail/bankrail/internal/errs"
)

// Filters of the list endpoints, by endpoint.
var (
	paymentFilters      = []string{"status", "currency", "internalReference", "paymentReference", "customerId", "createdAt[gte]", "createdAt[lte]", "page", "limit"}
	notificationFilters = []string{"paymentId", "status", "createdAt[gte]", "createdAt[lte]", "page", "limit"}
	bankFilters         = []string{"country", "paymentSystem"}
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
