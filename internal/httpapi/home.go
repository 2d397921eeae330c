package httpapi

import (
	"bytes"
	"html/template"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/config"
	legacyapi "github.com/bankrail/bankrail/internal/legacy"
)

// demoPaymentPath is where the start page's button posts (sandbox).
const demoPaymentPath = "/sandbox/demo-payment"

// docsWhere says where the documentation is: it is not served.
const docsWhere = "README.md and docs/ in the bankrail repository (github.com/bankrail/bankrail)"

// repositoryDocs is the address of the repository's files the start page
// links for the documentation, as bankrail does not serve it.
const repositoryDocs = "https://github.com/bankrail/bankrail/blob/main/"

// homeDoc is a document the start page links: its path in the repository
// and what it covers.
type homeDoc struct{ Path, About string }

// homeDocs are the documents the start page links, in its order.
var homeDocs = []homeDoc{
	{"README.md", "getting the binary, the first requests, configuration, the command line"},
	{"docs/payments.md", "creating, reading and listing payments"},
	{"docs/checkout.md", "the payment lifecycle, hosted checkout and mock banks"},
	{"docs/notifications.md", "signed notifications and how to verify them"},
	{"docs/sdk.md", "the Go SDK"},
	{"docs/cli.md", "the command line: login, trigger, notifications tail"},
	{"docs/legacy.md", "the legacy API and the embedded checkout"},
	{"docs/operations.md", "metrics and what to alert on"},
	{"docs/dashboard.md", "the dashboard, its pages and its sessions"},
}

// home serves GET /: a page for a person, or for a client that prefers
// JSON a small index of the same links. In a sandbox with the demo
// merchant the page offers a demo payment; in production it shows only the
// documentation, as nobody may act for a tenant from it.
func (s *Server) home(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Vary", "Accept")
	w.Header().Set("Cache-Control", "no-cache")
	sandbox := s.Mode == config.Sandbox
	demo := sandbox && s.Demo != nil && s.Payments != nil
	if prefersJSON(r.Header.Get("Accept")) {
		idx := api.HomeIndex{Name: "bankrail", Mode: api.HomeMode(s.Mode), Docs: opt(docsWhere),
			Links: api.HomeLinks{Openapi: "/openapi.json", Health: "/healthz", Readiness: "/readyz", MigrationGuide: legacyapi.GuidePath}}
		if sandbox {
			idx.Version = opt(s.Version)
		}
		if demo {
			idx.Links.DemoPayment = opt(demoPaymentPath)
		}
		if s.Dashboard != nil {
			idx.Links.Dashboard = opt("/dashboard/")
		}
		writeJSON(w, http.StatusOK, idx)
		return nil
	}
	var page bytes.Buffer
	if err := homePage.Execute(&page, homeData{Sandbox: sandbox, Demo: demo, Version: s.Version,
		GuidePath: legacyapi.GuidePath, DemoPath: demoPaymentPath, Dashboard: s.Dashboard != nil,
		DocsBase: repositoryDocs, Docs: homeDocs}); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	_, _ = w.Write(page.Bytes())
	return nil
}

// prefersJSON reports whether accept (an Accept header) ranks
// application/json above text/html. Without a preference (no header, */*,
// equal weights) a person's page wins.
func prefersJSON(accept string) bool {
	return quality(accept, "application/json") > quality(accept, "text/html")
}

// quality is the weight accept gives to mediaType: that of its most
// specific matching range (type/subtype, then type/*, then */*); 1 when
// accept is empty, 0 when nothing matches.
func quality(accept, mediaType string) float64 {
	if strings.TrimSpace(accept) == "" {
		return 1
	}
	typ, _, _ := strings.Cut(mediaType, "/")
	best, q := -1, 0.0
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		rank := -1
		switch mt {
		case mediaType:
			rank = 2
		case typ + "/*":
			rank = 1
		case "*/*":
			rank = 0
		}
		if rank <= best {
			continue
		}
		weight := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && f <= 1 {
				weight = f
			}
		}
		best, q = rank, weight
	}
	return q
}

// homeData fills homePage.
type homeData struct {
	Sandbox, Demo       bool
	Version             string
	GuidePath, DemoPath string
	Dashboard           bool // the web console is served at /dashboard/
	DocsBase            string
	Docs                []homeDoc
}

// homePage is the start page, in the checkout pages' style (their
// stylesheet, same origin): no script, no resource from elsewhere (its
// only links elsewhere are the repository's docs).
var homePage = template.Must(template.New("home").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>bankrail{{if .Sandbox}} sandbox{{end}}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/checkout/static/checkout.css">
</head>
<body data-page="home">
<a class="skip" href="#main">Skip to content</a>
<header class="top"><span class="brand">bankrail</span>{{if .Sandbox}}<span class="badge">Sandbox</span>{{end}}</header>
<main id="main" class="card">
<h1>bankrail is running</h1>
<p class="lead">A pay-by-bank payment provider{{if .Sandbox}}, here in sandbox mode: mock banks, a virtual clock, no real money{{if .Version}} (version {{.Version}}){{end}}{{end}}.</p>
{{if .Demo}}<section aria-labelledby="try">
<h2 id="try">Try a payment</h2>
<p>Create a payment of 10.50 EUR for the demo merchant, then pay it at a mock bank on its hosted checkout.</p>
<form method="post" action="{{.DemoPath}}" class="actions">
<button type="submit" class="primary">Create a demo payment and open its checkout</button>
</form>
<p class="hint">Its signed notification arrives in the sandbox inbox: <code>GET /sandbox/inbox</code> with the demo merchant's token (the start banner prints the commands).</p>
</section>
{{else if .Sandbox}}<p class="empty">This sandbox has no demo merchant (it was started with a seed file): create payments with <code>POST /payments</code> as one of your seeded merchants.</p>
{{end}}{{if .Dashboard}}<section aria-labelledby="console">
<h2 id="console">Dashboard</h2>
<p>Look rather than curl: payments and their timelines, notifications and redelivery, payouts waiting for a decision, reports, accounts, mandates and their amendments, stablecoin channels, and your applications&#39; notification URL and secret{{if .Sandbox}}; the sandbox inbox, clock, webhook chaos and reset{{end}}.</p>
<p><a class="button secondary" href="/dashboard/">Sign in to the dashboard</a></p>
<p class="hint">With a user's username and password, the same as for the API's password grant{{if .Demo}}; the start banner prints the demo merchant's{{end}}.</p>
</section>
{{end}}<section aria-labelledby="dev">
<h2 id="dev">For developers</h2>
<ul>
<li><a href="/openapi.json">OpenAPI document</a> (<code>/openapi.json</code>): every endpoint, request and answer</li>
<li>This page as JSON, for a program: <code>GET /</code> with <code>Accept: application/json</code> (the same links)</li>
<li><a href="{{.GuidePath}}">Migration guide</a> from the legacy Payments API to the Global API</li>
<li><a href="/healthz">Health</a> and <a href="/readyz">readiness</a></li>
</ul>
<p>Documentation, in the bankrail repository (github.com/bankrail/bankrail; bankrail does not serve it):</p>
<ul>
{{range .Docs}}<li><a href="{{$.DocsBase}}{{.Path}}"><code>{{.Path}}</code></a>: {{.About}}</li>
{{end}}</ul>
</section>
</main>
<footer class="foot">bankrail{{if .Sandbox}} &middot; sandbox: no real money moves{{end}}</footer>
</body>
</html>
`))
