package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/mandate"
	"github.com/bankrail/bankrail/internal/store"
	"github.com/bankrail/bankrail/notification"
)

// v1 is the API version header every mandate route requires.
var v1 = map[string]string{"X-Service-Api-Version": "1"}

// mandateRecord is the part of a mandate record the tests read.
type mandateRecord struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Status   string `json:"status"`
	Currency string `json:"currency"`
	Validity struct {
		From string  `json:"from"`
		To   *string `json:"to"`
	} `json:"validity"`
	PayTo *struct {
		Limits struct {
			Payment struct {
				Amount int64 `json:"amount"`
			} `json:"payment"`
		} `json:"limits"`
	} `json:"payTo"`
	UsedAt           *time.Time `json:"usedAt"`
	AuthorisationURL *string    `json:"authorisationUrl"`
}

// amendmentRecord is the part of an amendment record the tests read.
type amendmentRecord struct {
	ID        string `json:"id"`
	MandateID string `json:"mandateId"`
	Track     string `json:"track"`
	Initiator string `json:"initiator"`
	Status    struct {
		Status  string `json:"status"`
		Details *struct {
			Reason string `json:"reason"`
			Code   string `json:"code"`
		} `json:"details"`
	} `json:"status"`
	Changes json.RawMessage `json:"changes"`
	// ApprovalURL is the payer's page named by the answer's Link header
	// (rel="approval"), not a field of the record; empty without one.
	ApprovalURL string `json:"-"`
}

// payToBody is a valid PAYTO mandate request valid for a year from the
// fixture's epoch.
func payToBody() map[string]any {
	return map[string]any{
		"type":     "PAYTO",
		"payer":    map[string]any{"name": "Ann Payer", "accountIdentifiers": map[string]any{"bsb": "062000", "accountNumber": "12345678"}},
		"validity": map[string]any{"from": "2026-06-01 00:00:00", "to": "2027-06-01 00:00:00"},
		"payTo":    map[string]any{"limits": map[string]any{"payment": map[string]any{"amount": 5000}}},
	}
}

// vrpBody is a valid VRP mandate request without an end.
func vrpBody() map[string]any {
	return map[string]any{
		"type":  "VRP",
		"payer": map[string]any{"name": "Bo Payer", "accountIdentifiers": map[string]any{"sortCode": "040004", "accountNumber": "12345678"}},
	}
}

// mustCreateMandate creates a mandate and returns it.
func mustCreateMandate(t *testing.T, env *apptest.Env, token string, body any) mandateRecord {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "POST", Path: "/mandates", Token: token, Header: v1, Body: body})
	if resp.Status != http.StatusCreated {
		t.Fatalf("create mandate: %d %s", resp.Status, resp.Body)
	}
	var m mandateRecord
	resp.JSON(t, &m)
	if resp.Header.Get("Location") != "/mandates/"+m.ID {
		t.Fatalf("Location %q", resp.Header.Get("Location"))
	}
	return m
}

// mandateCall makes a call that answers a mandate record with want.
func mandateCall(t *testing.T, env *apptest.Env, token, method, path string, body any, want int) mandateRecord {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: method, Path: path, Token: token, Header: v1, Body: body})
	if resp.Status != want {
		t.Fatalf("%s %s: %d %s, want %d", method, path, resp.Status, resp.Body, want)
	}
	var m mandateRecord
	resp.JSON(t, &m)
	return m
}

// mustActiveMandate creates a mandate and authorises it.
func mustActiveMandate(t *testing.T, env *apptest.Env, token string, body any) mandateRecord {
	t.Helper()
	m := mustCreateMandate(t, env, token, body)
	return mandateCall(t, env, token, "POST", "/sandbox/mandates/"+m.ID+"/authorise", map[string]string{"outcome": "AUTHORISED"}, 200)
}

// amend asks for an amendment of mandate id.
func amend(t *testing.T, env *apptest.Env, token, id string, body any) *apptest.Response {
	t.Helper()
	return env.Do(t, apptest.Request{Method: "POST", Path: "/mandates/" + id + "/amendments", Token: token, Header: v1, Body: body})
}

// mustAmend asks for an amendment and returns it.
func mustAmend(t *testing.T, env *apptest.Env, token, id string, body any) amendmentRecord {
	t.Helper()
	resp := amend(t, env, token, id, body)
	if resp.Status != http.StatusCreated {
		t.Fatalf("amend %s: %d %s", id, resp.Status, resp.Body)
	}
	var a amendmentRecord
	resp.JSON(t, &a)
	a.ApprovalURL = api.LinkTarget(resp.Header, "approval")
	if resp.Header.Get("Location") != "/amendments/"+a.ID {
		t.Fatalf("Location %q", resp.Header.Get("Location"))
	}
	return a
}

// getAmendment reads an amendment.
func getAmendment(t *testing.T, env *apptest.Env, token, id string) *apptest.Response {
	t.Helper()
	return env.Do(t, apptest.Request{Method: "GET", Path: "/amendments/" + id, Token: token, Header: v1})
}

// fieldList is the field errors of e as "TYPE path".
func fieldList(e apptest.Error) []string {
	var got []string
	for _, f := range e.Errors {
		got = append(got, f.Type+" "+f.PropertyPath)
	}
	return got
}

// mandateNotice is a mandate notification as received.
type mandateNotice struct {
	Type      string
	Mandate   string `json:"mandate"`
	Amendment string `json:"amendment"`
	Status    string `json:"status"`
	Timestamp string `json:"timestamp"`
}

// notices waits for n notifications at rc and decodes them, checking their
// signature with the public receiver package.
func notices(t *testing.T, rc *apptest.Receiver, n int) []mandateNotice {
	t.Helper()
	var out []mandateNotice
	for _, r := range rc.WaitFor(t, n) {
		var m mandateNotice
		if err := json.Unmarshal(r.Body, &m); err != nil {
			t.Fatalf("notification body %s: %v", r.Body, err)
		}
		if err := notification.Verify(apptest.NotificationSecrets[apptest.Merchant.ClientID], r.Header, r.Body); err != nil || m.Timestamp == "" {
			t.Fatalf("notification %v %s: signature %v, or no timestamp", r.Header, r.Body, err)
		}
		m.Type = r.Header.Get("X-Service-Type")
		out = append(out, m)
	}
	return out
}

// expectNotices checks the notifications received, in order: "type status".
func expectNotices(t *testing.T, rc *apptest.Receiver, want ...string) []mandateNotice {
	t.Helper()
	got := notices(t, rc, len(want))
	var gotS []string
	for _, n := range got {
		gotS = append(gotS, n.Type+" "+n.Status)
	}
	if strings.Join(gotS, ",") != strings.Join(want, ",") {
		t.Fatalf("notifications %v, want %v", gotS, want)
	}
	return got
}

func TestMandateLifecycleWithNotifications(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc := apptest.NewReceiver(t)
		env.SetNotificationURL(t, apptest.Merchant, rc.URL)
		token := env.Token(t, apptest.Merchant)

		m := mustCreateMandate(t, env, token, payToBody())
		if m.Status != "REQUESTED" || m.Currency != "AUD" || m.PayTo == nil || m.PayTo.Limits.Payment.Amount != 5000 ||
			m.Validity.From != "2026-06-01 00:00:00" || m.Validity.To == nil || *m.Validity.To != "2027-06-01 00:00:00" ||
			m.UsedAt != nil || m.AuthorisationURL == nil || !strings.Contains(*m.AuthorisationURL, "/mock-banks/mandates/"+m.ID+"?token=") {
			t.Fatalf("new mandate %+v", m)
		}
		path := "/mandates/" + m.ID
		if got := mandateCall(t, env, token, "GET", path, nil, 200); got.Status != "REQUESTED" {
			t.Fatalf("read back %+v", got)
		}
		// Not yet ACTIVE: it cannot be suspended, resumed or amended.
		env.Do(t, apptest.Request{Method: "POST", Path: path + "/suspend", Token: token, Header: v1}).Error(t, 409, "RESOURCE_NOT_MODIFIABLE")
		amend(t, env, token, m.ID, map[string]any{"validity": map[string]any{"to": "2028-01-01 00:00:00"}}).Error(t, 409, "RESOURCE_NOT_MODIFIABLE")

		a := mandateCall(t, env, token, "POST", "/sandbox/mandates/"+m.ID+"/authorise", map[string]string{"outcome": "AUTHORISED"}, 200)
		if a.Status != "ACTIVE" || a.AuthorisationURL != nil {
			t.Fatalf("authorised %+v", a)
		}
		env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/mandates/" + m.ID + "/authorise", Token: token,
			Body: map[string]string{"outcome": "AUTHORISED"}}).Error(t, 409, "RESOURCE_NOT_MODIFIABLE")
		if s := mandateCall(t, env, token, "POST", path+"/suspend", nil, 200); s.Status != "SUSPENDED" {
			t.Fatalf("suspended %+v", s)
		}
		env.Do(t, apptest.Request{Method: "POST", Path: path + "/suspend", Token: token, Header: v1}).Error(t, 409, "RESOURCE_NOT_MODIFIABLE")
		if s := mandateCall(t, env, token, "POST", path+"/resume", nil, 200); s.Status != "ACTIVE" {
			t.Fatalf("resumed %+v", s)
		}
		if s := mandateCall(t, env, token, "POST", path+"/cancel", nil, 200); s.Status != "CANCELLED" {
			t.Fatalf("cancelled %+v", s)
		}
		for _, move := range []string{"/suspend", "/resume", "/cancel"} {
			env.Do(t, apptest.Request{Method: "POST", Path: path + move, Token: token, Header: v1}).Error(t, 409, "RESOURCE_NOT_MODIFIABLE")
		}
		declined := mustCreateMandate(t, env, token, vrpBody())
		if d := mandateCall(t, env, token, "POST", "/sandbox/mandates/"+declined.ID+"/authorise", map[string]string{"outcome": "DECLINED"}, 200); d.Status != "DECLINED" {
			t.Fatalf("declined %+v", d)
		}
		// In order per mandate (its ordering key); two mandates' notifications
		// may interleave either way.
		perMandate := map[string][]string{}
		for _, n := range notices(t, rc, 4) {
			if n.Amendment != "" {
				t.Fatalf("a mandate notification names an amendment: %+v", n)
			}
			perMandate[n.Mandate] = append(perMandate[n.Mandate], n.Type+" "+n.Status)
		}
		if got, want := strings.Join(perMandate[m.ID], ","), "mandate_authorised ACTIVE,mandate_suspended SUSPENDED,mandate_cancelled CANCELLED"; got != want {
			t.Fatalf("notifications of %s: %s, want %s", m.ID, got, want)
		}
		if got, want := strings.Join(perMandate[declined.ID], ","), "mandate_declined DECLINED"; got != want {
			t.Fatalf("notifications of %s: %s, want %s", declined.ID, got, want)
		}
		rc.Quiet(t, 4) // resume is not notified

		// The list: newest first, filtered, with the paging headers.
		resp := env.Do(t, apptest.Request{Method: "GET", Path: "/mandates?status=DECLINED", Token: token, Header: v1})
		var list []mandateRecord
		resp.JSON(t, &list)
		if resp.Status != 200 || len(list) != 1 || list[0].ID != declined.ID || resp.Header.Get("total-items") != "1" {
			t.Fatalf("list %d %s", resp.Status, resp.Body)
		}
		env.Do(t, apptest.Request{Method: "GET", Path: "/mandates?status=LOST", Token: token, Header: v1}).Error(t, 400, "INVALID_QUERY_PARAM")
		env.Do(t, apptest.Request{Method: "GET", Path: "/mandates/not-a-uuid", Token: token, Header: v1}).Error(t, 400, "MALFORMED_PATH_PARAM")
		env.Do(t, apptest.Request{Method: "GET", Path: path, Token: token}).Error(t, 400, "MISSING_HTTP_HEADER")
	})
}

func TestMandateCreationIsValidated(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	token := env.Token(t, apptest.Merchant)
	with := func(edit func(b map[string]any)) map[string]any { b := payToBody(); edit(b); return b }
	tests := []struct {
		name string
		body any
		want []string // "TYPE path"
	}{
		{"no type", with(func(b map[string]any) { delete(b, "type") }), []string{"VALUE_REQUIRED type"}},
		{"unknown type", with(func(b map[string]any) { b["type"] = "SEPA" }), []string{"INVALID_VALUE type"}},
		{"PAYTO in GBP", with(func(b map[string]any) { b["currency"] = "GBP" }), []string{"INVALID_VALUE currency"}},
		{"PAYTO without a limit", with(func(b map[string]any) { delete(b, "payTo") }), []string{"VALUE_REQUIRED payTo.limits.payment.amount"}},
		{"validity written as ISO 8601", with(func(b map[string]any) { b["validity"] = map[string]any{"to": "2027-06-01T00:00:00Z"} }), []string{"INVALID_FORMAT validity.to"}},
		{"validity ending before it starts", with(func(b map[string]any) {
			b["validity"] = map[string]any{"from": "2026-07-01 00:00:00", "to": "2026-06-15 00:00:00"}
		}), []string{"INVALID_DATE validity.to"}},
		{"validity ending in year 1 (not: no end)", with(func(b map[string]any) {
			b["validity"] = map[string]any{"to": "0001-01-01 00:00:00"}
		}), []string{"INVALID_DATE validity.to"}},
		{"everything wrong at once", map[string]any{"type": "VRP", "payTo": map[string]any{}, "payer": map[string]any{"name": ""}},
			[]string{"VALUE_REQUIRED payer.name", "VALUE_REQUIRED payer.accountIdentifiers", "FIELD_NOT_ALLOWED payTo"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := env.Do(t, apptest.Request{Method: "POST", Path: "/mandates", Token: token, Header: v1, Body: tc.body}).Error(t, 422, "VALIDATION_FAILURE")
			if got := fieldList(e); strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("errors %v, want %v", got, tc.want)
			}
		})
	}
	prod := apptest.New(t, apptest.Production)
	prod.Do(t, apptest.Request{Method: "POST", Path: "/mandates", Token: prod.Token(t, apptest.Merchant), Header: v1, Body: payToBody()}).
		Error(t, 404, "RESOURCE_NOT_FOUND")
}

func TestMandateExpiresOnTheClock(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc := apptest.NewReceiver(t)
		env.SetNotificationURL(t, apptest.Merchant, rc.URL)
		token := env.Token(t, apptest.Merchant)
		body := vrpBody()
		body["validity"] = map[string]any{"to": "2026-06-02 09:00:00"} // the epoch is 2026-06-01 09:00:00
		m := mustActiveMandate(t, env, token, body)
		// Another tenant's mandate with the same validity: its clock does not move.
		other := env.Token(t, apptest.OtherMerch)
		theirs := mustActiveMandate(t, env, other, body)
		advanceClock(t, env, token, int64((24*time.Hour-time.Second)/time.Second))
		rc.Quiet(t, 1) // authorised only: not yet due
		advanceClock(t, env, token, 1)
		// The worker expires it without anyone reading it.
		expectNotices(t, rc, "mandate_authorised ACTIVE", "mandate_expired EXPIRED")
		token = env.Token(t, apptest.Merchant)
		if got := mandateCall(t, env, token, "GET", "/mandates/"+m.ID, nil, 200); got.Status != "EXPIRED" {
			t.Fatalf("after validity.to: %+v", got)
		}
		env.Do(t, apptest.Request{Method: "POST", Path: "/mandates/" + m.ID + "/cancel", Token: token, Header: v1}).Error(t, 409, "RESOURCE_NOT_MODIFIABLE")
		if got := mandateCall(t, env, other, "GET", "/mandates/"+theirs.ID, nil, 200); got.Status != "ACTIVE" {
			t.Fatalf("another tenant's mandate after this tenant's advance: %+v", got)
		}
	})
}

func TestAmendmentRules(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		payTo := mustActiveMandate(t, env, token, payToBody())
		vrp := mustActiveMandate(t, env, token, vrpBody())
		tests := []struct {
			name    string
			mandate string
			body    any
			status  int
			code    string
			fields  []string
		}{
			{"rule 2: neither validity nor payTo", payTo.ID, map[string]any{}, 422, "VALIDATION_FAILURE", []string{"MISSING_FIELD validity"}},
			{"explicit nulls are refused, as in every body (docs/decisions.md)", payTo.ID, map[string]any{"validity": nil, "payTo": nil}, 422, "VALIDATION_FAILURE", []string{"INVALID_TYPE payTo", "INVALID_TYPE validity"}},
			{"rule 3: payTo on a VRP mandate", vrp.ID, map[string]any{"payTo": map[string]any{"limits": map[string]any{"payment": map[string]any{"amount": 10}}}},
				422, "VALIDATION_FAILURE", []string{"FIELD_NOT_ALLOWED payTo"}},
			{"timestamps are date space time", payTo.ID, map[string]any{"validity": map[string]any{"to": "2028-01-01T00:00:00Z"}},
				422, "VALIDATION_FAILURE", []string{"INVALID_FORMAT validity.to"}},
			{"a validity ending in the past", payTo.ID, map[string]any{"validity": map[string]any{"from": "2026-01-01 00:00:00", "to": "2026-02-01 00:00:00"}},
				422, "VALIDATION_FAILURE", []string{"INVALID_DATE validity.to"}},
			{"a validity.to in year 1 is not no end", payTo.ID, map[string]any{"validity": map[string]any{"to": "0001-01-01 00:00:00"}},
				422, "VALIDATION_FAILURE", []string{"INVALID_DATE validity.to"}},
			{"a limit of zero", payTo.ID, map[string]any{"payTo": map[string]any{"limits": map[string]any{"payment": map[string]any{"amount": 0}}}},
				422, "VALIDATION_FAILURE", []string{"TOO_LOW payTo.limits.payment.amount"}},
			{"a limit that is not a number", payTo.ID, map[string]any{"payTo": map[string]any{"limits": map[string]any{"payment": map[string]any{"amount": "ten"}}}},
				422, "VALIDATION_FAILURE", nil},
			{"a malformed mandate id", "nope", map[string]any{"payTo": map[string]any{}}, 400, "MALFORMED_PATH_PARAM", nil},
			{"a missing mandate", "00000000-0000-4000-8000-00000000dead", map[string]any{"validity": map[string]any{"to": "2028-01-01 00:00:00"}}, 404, "RESOURCE_NOT_FOUND", nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				e := amend(t, env, token, tc.mandate, tc.body).Error(t, tc.status, tc.code)
				if got := fieldList(e); tc.fields != nil && strings.Join(got, ",") != strings.Join(tc.fields, ",") {
					t.Fatalf("errors %v, want %v", got, tc.fields)
				}
			})
		}
		// Rule 1: only ACTIVE or SUSPENDED; SUSPENDED may be amended.
		mandateCall(t, env, token, "POST", "/mandates/"+vrp.ID+"/suspend", nil, 200)
		first := mustAmend(t, env, token, vrp.ID, map[string]any{"validity": map[string]any{"from": "2026-06-02 00:00:00", "to": "2028-01-01 00:00:00"}})
		if first.Status.Status != "AWAITING_APPROVAL" || first.Status.Details != nil || first.Track != "BILATERAL" || first.Initiator != "CUSTOMER" ||
			first.MandateID != vrp.ID || !strings.Contains(first.ApprovalURL, "/mock-banks/amendments/"+first.ID+"?token=") ||
			string(first.Changes) != `{"validity":{"from":"2026-06-02 00:00:00","to":"2028-01-01 00:00:00"}}` {
			t.Fatalf("amendment %+v %s", first, first.Changes)
		}
		if got := api.LinkTarget(getAmendment(t, env, token, first.ID).Header, "approval"); got != first.ApprovalURL {
			t.Fatalf("GET /amendments/{id} names the payer's page %q, the 201 %q", got, first.ApprovalURL)
		}
		// One open amendment per mandate; the state is checked before the body.
		amend(t, env, token, vrp.ID, map[string]any{"validity": map[string]any{"to": "2029-01-01 00:00:00"}}).Error(t, 409, "CONFLICT")
		amend(t, env, token, vrp.ID, map[string]any{}).Error(t, 409, "CONFLICT")
		// Rule 4: once a payment used the mandate, validity.from cannot change (validity.to still can).
		used := mustActiveMandate(t, env, token, payToBody())
		useMandate(t, env, used.ID, 100)
		if got := mandateCall(t, env, token, "GET", "/mandates/"+used.ID, nil, 200); got.UsedAt == nil || !got.UsedAt.Equal(apptest.Epoch) {
			t.Fatalf("usedAt of a used mandate: %+v", got.UsedAt)
		}
		e := amend(t, env, token, used.ID, map[string]any{"validity": map[string]any{"from": "2026-07-01 00:00:00"},
			"payTo": map[string]any{"limits": map[string]any{"payment": map[string]any{"amount": 0}}}}).Error(t, 422, "VALIDATION_FAILURE")
		if got := fieldList(e); strings.Join(got, ",") != "TOO_LOW payTo.limits.payment.amount,FIELD_NOT_ALLOWED validity.from" {
			t.Fatalf("every failing field at once: %v", got)
		}
		mustAmend(t, env, token, used.ID, map[string]any{"validity": map[string]any{"to": "2028-01-01 00:00:00"}})

		mandateCall(t, env, token, "POST", "/mandates/"+payTo.ID+"/cancel", nil, 200)
		amend(t, env, token, payTo.ID, map[string]any{}).Error(t, 409, "RESOURCE_NOT_MODIFIABLE")
	})
}

// useMandate takes a payment of amount against mandate id as the payment
// path will (POST /payments with mandateId is not wired yet): the mandate
// service's Use in a unit of work of the instance's store.
func useMandate(t *testing.T, env *apptest.Env, id string, amount int64) {
	t.Helper()
	st := env.App.Store()
	svc := mandate.NewService(st.Mandates(), st.Amendments(), store.Transactor[mandate.Repos](st), env.App.Clock(), mandate.Config{MaxMajor: 1 << 40})
	if _, err := svc.UseInTx(context.Background(), apptest.ShopID, mandate.PaymentUse{MandateID: id, Amount: amount}); err != nil {
		t.Fatalf("use mandate %s: %v", id, err)
	}
}

func TestAmendmentAnswers(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc := apptest.NewReceiver(t)
		token := env.Token(t, apptest.Merchant)
		env.SetNotificationURL(t, apptest.Merchant, rc.URL)
		m := mustActiveMandate(t, env, token, payToBody())

		// Approved: the changes apply to the mandate.
		a := mustAmend(t, env, token, m.ID, map[string]any{"validity": map[string]any{"to": "2028-01-01 00:00:00"},
			"payTo": map[string]any{"limits": map[string]any{"payment": map[string]any{"amount": 7500}}}})
		resp := env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/amendments/" + a.ID + "/approve", Token: token})
		var approved amendmentRecord
		resp.JSON(t, &approved)
		if resp.Status != 200 || approved.Status.Status != "APPROVED" || approved.Status.Details == nil ||
			approved.Status.Details.Code != "APPROVED_BY_PAYER" || api.LinkTarget(resp.Header, "approval") != "" {
			t.Fatalf("approved %d %s %v", resp.Status, resp.Body, resp.Header)
		}
		after := mandateCall(t, env, token, "GET", "/mandates/"+m.ID, nil, 200)
		if after.PayTo.Limits.Payment.Amount != 7500 || *after.Validity.To != "2028-01-01 00:00:00" || after.Validity.From != m.Validity.From || after.Status != "ACTIVE" {
			t.Fatalf("mandate after approval %+v", after)
		}
		env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/amendments/" + a.ID + "/decline", Token: token}).Error(t, 409, "RESOURCE_NOT_MODIFIABLE")
		env.Do(t, apptest.Request{Method: "POST", Path: "/amendments/" + a.ID + "/recall", Token: token, Header: v1}).Error(t, 409, "RESOURCE_NOT_MODIFIABLE")

		// Declined: the mandate is unchanged.
		d := mustAmend(t, env, token, m.ID, map[string]any{"payTo": map[string]any{"limits": map[string]any{"payment": map[string]any{"amount": 1}}}})
		env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/amendments/" + d.ID + "/decline", Token: token})
		var declined amendmentRecord
		getAmendment(t, env, token, d.ID).JSON(t, &declined)
		if declined.Status.Status != "DECLINED" || declined.Status.Details.Code != "DECLINED_BY_PAYER" {
			t.Fatalf("declined %+v", declined)
		}
		if got := mandateCall(t, env, token, "GET", "/mandates/"+m.ID, nil, 200); got.PayTo.Limits.Payment.Amount != 7500 {
			t.Fatalf("a declined amendment changed the mandate: %+v", got)
		}

		// Recalled: 404 from then on, to every call.
		r := mustAmend(t, env, token, m.ID, map[string]any{"validity": map[string]any{"to": "2029-01-01 00:00:00"}})
		if resp := env.Do(t, apptest.Request{Method: "POST", Path: "/amendments/" + r.ID + "/recall", Token: token, Header: v1}); resp.Status != http.StatusNoContent {
			t.Fatalf("recall: %d %s", resp.Status, resp.Body)
		}
		getAmendment(t, env, token, r.ID).Error(t, 404, "RESOURCE_NOT_FOUND")
		env.Do(t, apptest.Request{Method: "POST", Path: "/amendments/" + r.ID + "/recall", Token: token, Header: v1}).Error(t, 404, "RESOURCE_NOT_FOUND")
		env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/amendments/" + r.ID + "/approve", Token: token}).Error(t, 404, "RESOURCE_NOT_FOUND")

		// Abandoned: no answer within 5 days on the clock.
		ab := mustAmend(t, env, token, m.ID, map[string]any{"validity": map[string]any{"to": "2029-01-01 00:00:00"}})
		advanceClock(t, env, token, int64((5*24*time.Hour-time.Second)/time.Second))
		token = env.Token(t, apptest.Merchant)
		var waiting amendmentRecord
		getAmendment(t, env, token, ab.ID).JSON(t, &waiting)
		if waiting.Status.Status != "AWAITING_APPROVAL" {
			t.Fatalf("abandoned early: %+v", waiting)
		}
		advanceClock(t, env, token, 1)
		got := expectNotices(t, rc, "mandate_authorised ACTIVE",
			"mandate_amendment_requested AWAITING_APPROVAL", "mandate_amended APPROVED",
			"mandate_amendment_requested AWAITING_APPROVAL", "mandate_amendment_declined DECLINED",
			"mandate_amendment_requested AWAITING_APPROVAL", // the recalled one: no notification on recall
			"mandate_amendment_requested AWAITING_APPROVAL", "mandate_amendment_request_abandoned ABANDONED")
		for i, id := range []string{a.ID, a.ID, d.ID, d.ID, r.ID, ab.ID, ab.ID} {
			if got[i+1].Amendment != id || got[i].Mandate != m.ID {
				t.Fatalf("notification %d names %+v, want amendment %s", i+1, got[i+1], id)
			}
		}
		var abandoned amendmentRecord
		getAmendment(t, env, token, ab.ID).JSON(t, &abandoned)
		if abandoned.Status.Status != "ABANDONED" || abandoned.Status.Details.Code != "NO_ANSWER" {
			t.Fatalf("abandoned %+v", abandoned)
		}
		env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/amendments/" + ab.ID + "/approve", Token: token}).Error(t, 409, "RESOURCE_NOT_MODIFIABLE")
		// The mandate is free for a new amendment.
		mustAmend(t, env, token, m.ID, map[string]any{"validity": map[string]any{"to": "2030-01-01 00:00:00"}})
	})
}
