package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/auth"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/iso"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/wire"
)

// principal is the caller of an authenticated route.
func principal(r *http.Request) auth.Principal {
	p, _ := auth.PrincipalFrom(r.Context())
	return p
}

// createPayment serves POST /payments: 201 with the Global payment record and
// a Location header; a replay under the same Idempotency-Key answers the
// stored status and body with Idempotent-Replayed: true.
func (s *Server) createPayment(w http.ResponseWriter, r *http.Request) error {
	channel, err := initiationChannel(r)
	if err != nil {
		return err
	}
	in, err := s.creation(r, "POST /payments")
	if err != nil {
		return err
	}
	var body api.PaymentCreateRequest
	if err := s.decodeJSON(w, r, &body); err != nil {
		if body.MandateID != nil {
			return err
		}
		return withCheck(err, func() error { return s.Payments.Check(wire.CreateRequest(body), channel) })
	}
	in.Request = wire.CreateRequest(body)
	in.Channel = channel
	if body.MandateID != nil {
		return s.createMandatePayment(w, r, in) // mandates_payments.go
	}
	resp, err := s.Payments.Create(r.Context(), in, render(s.recordOf))
	if err != nil {
		return err
	}
	writeCreated(w, resp)
	return nil
}

// creation reads what every endpoint that creates a payment (Global,
// legacy, embedded checkout) takes besides its body: the caller, the
// Idempotency-Key and the sandbox scenario.
func (s *Server) creation(r *http.Request, operation string) (payment.CreateInput, error) {
	key, err := idempotencyKey(r)
	if err != nil {
		return payment.CreateInput{}, err
	}
	scenario, err := s.testingScenario(r)
	if err != nil {
		return payment.CreateInput{}, err
	}
	who := principal(r)
	return payment.CreateInput{
		Creator:        payment.Creator{CustomerID: who.CustomerID, ClientID: who.ClientID, UserID: who.UserID},
		IdempotencyKey: key,
		Operation:      operation,
		Scenario:       scenario,
	}, nil
}

// render makes the representation of a new payment (view's JSON), kept
// for idempotent replays.
func render[T any](view func(payment.Payment) T) payment.Renderer {
	return func(p payment.Payment) ([]byte, error) { return encodeJSON(view(p)) }
}

// writeCreated writes the answer of a creation with Location: /payments/{id}
// and, for a replay, Idempotent-Replayed: true.
func writeCreated(w http.ResponseWriter, resp payment.Response) {
	if resp.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.Header().Set("Location", "/payments/"+resp.ResourceID)
	writeJSONBytes(w, http.StatusCreated, resp.Body)
}

// initiationChannel reads X-Service-Initiation-Channel: hosted or api.
func initiationChannel(r *http.Request) (payment.Channel, error) {
	v := strings.TrimSpace(r.Header.Get("X-Service-Initiation-Channel"))
	switch payment.Channel(strings.ToLower(v)) {
	case payment.ChannelHosted:
		return payment.ChannelHosted, nil
	case payment.ChannelAPI:
		return payment.ChannelAPI, nil
	}
	if v == "" {
		return "", errs.E(errs.MissingHeader, "X-Service-Initiation-Channel header is required: hosted or api.")
	}
	return "", errs.E(errs.InvalidHeader, "X-Service-Initiation-Channel %q is not supported: use hosted or api.", v)
}

// idempotencyKey reads the optional Idempotency-Key: 1 to 64 printable
// characters.
func idempotencyKey(r *http.Request) (string, error) {
	values := r.Header.Values("Idempotency-Key")
	if len(values) == 0 {
		return "", nil
	}
	k := strings.TrimSpace(values[0])
	switch {
	case len(values) > 1:
		return "", errs.E(errs.InvalidHeader, "Send one Idempotency-Key header, not %d.", len(values))
	case k == "":
		return "", errs.E(errs.InvalidHeader, "Idempotency-Key is empty; send up to %d characters (a uuid is recommended) or leave the header out.", payment.MaxIdempotencyKeyLength)
	case len(k) > payment.MaxIdempotencyKeyLength:
		return "", errs.E(errs.InvalidHeader, "Idempotency-Key must be at most %d characters long, got %d.", payment.MaxIdempotencyKeyLength, len(k))
	}
	for _, c := range k {
		if c < 0x21 || c > 0x7e {
			return "", errs.E(errs.InvalidHeader, "Idempotency-Key may hold only printable ASCII characters.")
		}
	}
	return k, nil
}

// getPayment serves GET /payments/{id}: the details record.
func (s *Server) getPayment(w http.ResponseWriter, r *http.Request) error {
	it, err := s.Payments.GetDetails(r.Context(), principal(r).CustomerID, r.PathValue("id"))
	if err != nil {
		return err
	}
	d := s.detailsOf(it.Payment)
	if s.Refunds != nil { // the whole refund rule: what is left, what the account holds (read with the payment)
		d.RefundAvailable, d.RefundNotAvailableCode, d.RefundNotAvailableReason = it.Refund.Available, it.Refund.Code, it.Refund.Reason
	}
	writeJSON(w, http.StatusOK, d)
	return nil
}

// listPayments serves GET /payments: details records, newest first, with the
// paging headers page, limit, page-count and total-items, and next-cursor
// and a Link to the next page when one follows. Each record applies the
// whole refund rule, as GET /payments/{id} does (read with the page).
func (s *Server) listPayments(w http.ResponseWriter, r *http.Request) error {
	f, err := parseListFilter(r)
	if err != nil {
		return err
	}
	page, err := s.Payments.ListPage(r.Context(), principal(r).CustomerID, f)
	return writeListOf(w, r, listPaging{Page: f.Page, Limit: f.Limit}, page, err, func(it payment.ListItem) api.PaymentDetails {
		d := s.detailsOf(it.Payment)
		if s.Refunds != nil { // as getPayment: the whole rule where refunds exist
			d.RefundAvailable, d.RefundNotAvailableCode, d.RefundNotAvailableReason = it.Refund.Available, it.Refund.Code, it.Refund.Reason
		}
		return d
	})
}

// parseListFilter reads the query of GET /payments.
func parseListFilter(r *http.Request) (payment.ListFilter, error) {
	q, err := listQuery(r, paymentFilters)
	if err != nil {
		return payment.ListFilter{}, err
	}
	lp, err := readPaging(q, payment.DefaultPageLimit, payment.MaxPageLimit)
	if err != nil {
		return payment.ListFilter{}, err
	}
	f := payment.ListFilter{Page: lp.Page, Limit: lp.Limit, After: lp.After, Currency: q.Get("currency"),
		InternalReference: q.Get("internalReference"), PaymentReference: q.Get("paymentReference")}
	if st := q.Get("status"); st != "" {
		if f.Status = payment.Status(st); !f.Status.Valid() {
			return f, errs.E(errs.InvalidQueryParam, "status %q is not a payment status (e.g. NEW_PAYMENT, COMPLETED).", st)
		}
	}
	if f.Currency != "" {
		if _, ok := iso.CurrencyOf(f.Currency); !ok {
			return f, errs.E(errs.InvalidQueryParam, "currency %q is not an ISO 4217 currency code.", f.Currency)
		}
	}
	if f.CustomerID, err = uuidParam(q, "customerId"); err != nil {
		return f, err
	}
	if f.CreatedFrom, err = timeParam(q, "createdAt[gte]"); err != nil {
		return f, err
	}
	if f.CreatedTo, err = timeParam(q, "createdAt[lte]"); err != nil {
		return f, err
	}
	return f, nil
}

// nameMatchScore serves GET /payments/{id}/name-match-score.
func (s *Server) nameMatchScore(w http.ResponseWriter, r *http.Request) error {
	m, err := s.scoreName(r, "allowInitials")
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.NameMatchScore{InvocationID: m.InvocationID, Score: m.Score})
	return nil
}

// scoreName computes a name match score; the query parameter that allows
// initials differs between the Global and the legacy API (as does the
// answer's shape).
func (s *Server) scoreName(r *http.Request, initialsParam string) (payment.NameMatch, error) {
	q, err := listQuery(r, []string{initialsParam})
	if err != nil {
		return payment.NameMatch{}, err
	}
	allow := false
	switch v := q.Get(initialsParam); strings.ToLower(v) {
	case "", "false":
	case "true":
		allow = true
	default:
		return payment.NameMatch{}, errs.E(errs.InvalidQueryParam, "%s must be true or false, got %q.", initialsParam, v)
	}
	return s.Payments.NameMatchScore(r.Context(), principal(r).CustomerID, r.PathValue("id"), allow)
}

// followShortLink serves GET /c/{code}: a redirect to the payer's full
// checkout address.
func (s *Server) followShortLink(w http.ResponseWriter, r *http.Request) error {
	target, err := s.Payments.ResolveShortLink(r.Context(), r.PathValue("code"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, target, http.StatusFound)
	return nil
}

// encodeJSON encodes v as writeJSON does.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode response: %w", err)
	}
	return buf.Bytes(), nil
}

// writeJSONBytes writes an already encoded JSON body.
func writeJSONBytes(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// isUUID reports whether s is a uuid in its canonical 36-character form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}
