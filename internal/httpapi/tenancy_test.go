package httpapi_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/inbox"
)

// The tenancy matrix: every authenticated operation that names or lists
// resources, tried by every relation a caller can have to the resource's
// customer, on both engines. A new endpoint joins it by adding a row to
// tenancyCases (and, for a new kind of resource, a maker to
// tenancyResources); TestTenancyMatrixCoversEveryRoute fails until it does,
// or until tenancyExempt says why the endpoint names nothing of a customer.

// owned is a resource made for one cell of the matrix.
type owned struct {
	ID       string // the resource's id
	Customer string // its customer's id
}

// tenancyResources make one resource of a kind, owned by the customer of
// owner, through the public API.
var tenancyResources = map[string]func(t *testing.T, env *apptest.Env, owner apptest.Login) owned{
	"payment": func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		return owned{mustCreate(t, env, env.Token(t, owner), euBody(), nil).ID, customerOf(owner)}
	},
	// A payment the payer has authorised: its account holder name is known.
	"completed payment": func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		token := env.Token(t, owner)
		id := mustCreate(t, env, token, euBody(), nil).ID
		mustAuthorise(t, env, token, id, "COMPLETED")
		return owned{id, customerOf(owner)}
	},
	// A notification delivered to the owner's sandbox inbox: the same id
	// reaches the delivery log and the inbox.
	"notification": func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		env.SetNotificationURL(t, owner, env.URL+inbox.Path(owner.ClientID))
		n := sendTest(t, env, env.Token(t, owner))
		if n.Status != "DELIVERED" {
			t.Fatalf("test notification to the inbox of %s: %+v", owner.ClientID, n)
		}
		return owned{n.ID, customerOf(owner)}
	},
}

// customerOf is the fixture customer of a login.
func customerOf(l apptest.Login) string {
	switch l.ClientID {
	case apptest.PSPAdmin.ClientID:
		return apptest.PSPID
	case apptest.Merchant.ClientID:
		return apptest.ShopID
	default:
		return apptest.OtherShopID
	}
}

// tenancyCase is one operation of the matrix.
type tenancyCase struct {
	Route    string // the served pattern, as the router lists it
	Resource string // the kind made for each cell (a key of tenancyResources)
	Write    bool   // changes something: READ_ONLY is refused
	Path     func(r owned) string
	Body     any
	OK       int  // the status an allowed caller gets
	List     bool // a list: allowed callers find the resource in it, others do not
	Legacy   bool // answers in the legacy error shape
	Header   map[string]string

	BodyOf func(r owned) any // the body, when it names the resource (else Body)
}

var tenancyCases = []tenancyCase{
	{Route: "GET /payments/{id}", Resource: "payment", OK: 200,
		Path: func(r owned) string { return "/payments/" + r.ID }},
	{Route: "GET /payments/{id}/name-match-score", Resource: "completed payment", OK: 200,
		Path: func(r owned) string { return "/payments/" + r.ID + "/name-match-score" }},
	{Route: "GET /legacy/payments/{id}/name-match-score", Resource: "completed payment", OK: 200, Legacy: true,
		Path: func(r owned) string { return "/legacy/payments/" + r.ID + "/name-match-score" }},
	{Route: "POST /sandbox/payments/{id}/authorise", Resource: "payment", OK: 200, Write: true,
		Path: func(r owned) string { return "/sandbox/payments/" + r.ID + "/authorise" },
		Body: map[string]string{"outcome": "COMPLETED"}},
	{Route: "GET /payments", Resource: "payment", OK: 200, List: true,
		Path: func(r owned) string { return "/payments?customerId=" + r.Customer }},
	{Route: "GET /notifications/{id}", Resource: "notification", OK: 200,
		Path: func(r owned) string { return "/notifications/" + r.ID }},
	{Route: "POST /notifications/{id}/redeliver", Resource: "notification", OK: 202, Write: true,
		Path: func(r owned) string { return "/notifications/" + r.ID + "/redeliver" }},
	{Route: "GET /notifications", Resource: "notification", OK: 200, List: true,
		Path: func(r owned) string { return "/notifications" }},
	{Route: "GET /sandbox/inbox", Resource: "notification", OK: 200, List: true,
		Path: func(r owned) string { return "/sandbox/inbox" }},
}

// tenancyExempt are authenticated routes that name no resource of a
// customer, with the reason.
var tenancyExempt = map[string]string{
	"POST /payments":              "creates a payment of the caller's own customer; names nothing of another",
	"POST /legacy/payments":       "creates a payment of the caller's own customer; names nothing of another",
	"POST /dropin":                "creates a payment of the caller's own customer; names nothing of another",
	"GET /banks":                  "the bank registry is the same for every customer",
	"GET /banks/{id}":             "the bank registry is the same for every customer",
	"POST /notifications/test":    "acts on the caller's own application, named by its token",
	"POST /notifications/resume":  "acts on the caller's own application, named by its token",
	"GET /sandbox/clock":          "reads the clock of the caller's own tenant (TestSandboxClockIsPerTenant)",
	"POST /sandbox/clock/advance": "moves the clock of the caller's own tenant only (TestSandboxClockIsPerTenant)",
	"POST /sandbox/clock/reset":   "resets the clock of the caller's own tenant only (TestSandboxClockReset)",
}

// relation is how a caller stands to the customer that owns a resource.
type relation struct {
	Name          string
	Owner, Caller apptest.Login
	Reads, Writes bool // allowed to read, to change
}

var relations = []relation{
	{"its own customer", apptest.Merchant, apptest.Merchant, true, true},
	{"its own customer, READ_ONLY", apptest.Merchant, apptest.Viewer, true, false},
	{"the PSP above it", apptest.Merchant, apptest.PSPAdmin, true, true},
	{"an unrelated merchant", apptest.Merchant, apptest.OtherMerch, false, false},
	{"a merchant below it", apptest.PSPAdmin, apptest.Merchant, false, false},
}

func TestTenancyMatrix(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		for _, c := range tenancyCases {
			newResource := tenancyResources[c.Resource]
			if newResource == nil {
				t.Fatalf("%s: no maker for resource %q", c.Route, c.Resource)
			}
			for _, rel := range relations {
				t.Run(c.Route+"/"+rel.Name, func(t *testing.T) {
					r := newResource(t, env, rel.Owner)
					body := c.Body
					if c.BodyOf != nil {
						body = c.BodyOf(r)
					}
					resp := env.Do(t, apptest.Request{Method: method(c.Route), Path: c.Path(r), Body: body, Header: c.Header, Token: env.Token(t, rel.Caller)})
					allowed := rel.Reads && (!c.Write || rel.Writes)
					switch {
					case c.List:
						if resp.Status != c.OK {
							t.Fatalf("%d %s", resp.Status, resp.Body)
						}
						if found := strings.Contains(string(resp.Body), r.ID); found != allowed {
							t.Fatalf("resource %s listed: %v, want %v (%s)", r.ID, found, allowed, resp.Body)
						}
					case allowed:
						if resp.Status != c.OK {
							t.Fatalf("allowed caller: %d %s, want %d", resp.Status, resp.Body, c.OK)
						}
					case !rel.Reads:
						expectRefusal(t, resp, c.Legacy, http.StatusNotFound, "RESOURCE_NOT_FOUND")
					default: // reads but may not write
						expectRefusal(t, resp, c.Legacy, http.StatusForbidden, "ACCESS_DENIED")
					}
				})
			}
		}
	})
}

// expectRefusal checks a refusal in the shape of the route's API.
func expectRefusal(t *testing.T, resp *apptest.Response, legacy bool, status int, code string) {
	t.Helper()
	if legacy {
		resp.LegacyError(t, status)
		return
	}
	resp.Error(t, status, code)
}

// method is the method of a route pattern.
func method(route string) string {
	m, _, _ := strings.Cut(route, " ")
	return m
}

// TestTenancyMatrixCoversEveryRoute asks every served route without a token:
// each one that wants a token must be in the matrix or exempt with a reason.
func TestTenancyMatrixCoversEveryRoute(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	lister, ok := env.App.Handler().(interface{ Routes() []string })
	if !ok {
		t.Fatalf("the handler %T does not list its routes", env.App.Handler())
	}
	covered := map[string]bool{}
	for _, c := range tenancyCases {
		covered[c.Route] = true
	}
	placeholder := strings.NewReplacer("{id}", "00000000-0000-4000-8000-00000000dead", "{clientId}", "x", "{code}", "x")
	var authenticated []string
	for _, route := range lister.Routes() {
		m, path, ok := strings.Cut(route, " ")
		if !ok {
			continue // a prefix of the payer's pages: no token
		}
		resp := env.Do(t, apptest.Request{Method: m, Path: placeholder.Replace(path), SkipSpec: true})
		if resp.Status != http.StatusUnauthorized {
			continue
		}
		authenticated = append(authenticated, route)
		if !covered[route] && tenancyExempt[route] == "" {
			t.Errorf("%s wants a token but is not in the tenancy matrix (tenancyCases) nor exempt with a reason (tenancyExempt)", route)
		}
	}
	if len(authenticated) < len(tenancyCases) {
		t.Fatalf("only %d routes want a token (%v): the probe is broken", len(authenticated), authenticated)
	}
	for route := range covered {
		if !slices.Contains(authenticated, route) {
			t.Errorf("%s is in the matrix but is not a served route that wants a token", route)
		}
	}
	for route := range tenancyExempt {
		if !slices.Contains(authenticated, route) {
			t.Errorf("%s is exempt but is not a served route that wants a token", route)
		}
	}
}
