package app

import (
	"fmt"
	"net"
	"runtime/debug"
	"strings"

	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/seed"
)

// version is set at build time with -ldflags "-X github.com/bankrail/bankrail/internal/app.version=v1.2.3".
var version = ""

// Version names this build.
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// Banner tells a newcomer what is running and what to do next.
func (a *App) Banner() string {
	var b strings.Builder
	u := a.cfg.PublicURL
	fmt.Fprintf(&b, "\nbankrail %s is running in %s mode\n\n", Version(), a.cfg.Mode)
	fmt.Fprintf(&b, "  start page   %s/ (open it in a browser)\n", u)
	fmt.Fprintf(&b, "  API          %s\n", u)
	fmt.Fprintf(&b, "  database     %s\n", a.cfg.DatabaseDescription())
	if r := a.cfg.ReplicaDescription(); r != "" {
		fmt.Fprintf(&b, "  replica      %s (list pages and reports, while it lags at most %s)\n", r, a.cfg.ReplicaMaxLag)
	}
	fmt.Fprintf(&b, "  API docs     %s/openapi.json\n", u)
	fmt.Fprintf(&b, "  health       %s/healthz\n", u)
	if a.cfg.Mode == config.Sandbox {
		fmt.Fprintf(&b, "  sandbox      virtual clock at %s/sandbox/clock\n", u)
	}
	if a.demo {
		fmt.Fprintf(&b, "\nDemo merchant (sandbox only; fixed credentials - do not expose this server):\n")
		fmt.Fprintf(&b, "  client_id      %s\n  client_secret  %s\n  username       %s\n  password       %s\n  notifications  signed with %q\n",
			seed.DemoClientID, seed.DemoClientSecret, seed.DemoUsername, seed.DemoPassword, seed.DemoNotificationSecret)
		fmt.Fprintf(&b, "\nDemo operator (role OPERATOR: the whole instance's snapshot, restore and reset, the dashboard's bank pages; same warning):\n")
		fmt.Fprintf(&b, "  client_id      %s\n  client_secret  %s\n  username       %s\n  password       %s\n",
			seed.DemoOperatorClientID, seed.DemoOperatorClientSecret, seed.DemoOperatorUsername, seed.DemoOperatorPassword)
		fmt.Fprintf(&b, "\nGet an access token into $TOKEN:\n  TOKEN=$(curl -s %s/oauth -H 'Content-Type: application/json' \\\n    -d '{\"grant_type\":\"password\",\"client_id\":\"%s\",\"client_secret\":\"%s\",\"username\":\"%s\",\"password\":\"%s\"}' \\\n    | sed -E 's/.*\"access_token\":\"([^\"]+)\".*/\\1/')\n",
			u, seed.DemoClientID, seed.DemoClientSecret, seed.DemoUsername, seed.DemoPassword)
		fmt.Fprintf(&b, "\nCreate a payment:\n  curl -s %s/payments -H \"Authorization: Bearer $TOKEN\" \\\n    -H 'Content-Type: application/json' -H 'X-Service-Initiation-Channel: hosted' -H 'X-Service-Api-Version: 1' \\\n    -d '%s'\n", u, demoPayment)
		fmt.Fprintf(&b, "then open its paymentInitiationFlow.details.redirect.url in a browser and pay at the mock bank\n")
		fmt.Fprintf(&b, "(or open %s/ and press its demo payment button, which does both),\n", u)
		fmt.Fprintf(&b, "and read the signed notifications the sandbox inbox received:\n  curl -s %s/sandbox/inbox -H \"Authorization: Bearer $TOKEN\"\n", u)
		if host, _, err := net.SplitHostPort(a.cfg.Addr); err == nil && !isLoopback(host) {
			fmt.Fprintf(&b, "\nWARNING: listening on %s with the demo merchant's public credentials. Use --seed or --mode production.\n", host)
		}
	}
	fmt.Fprintf(&b, "\nNext: open %s/ for the links of this instance (API document, docs%s).\n", u, map[bool]string{true: ", a demo payment", false: ""}[a.demo])
	fmt.Fprintf(&b, "Stop with Ctrl-C. More: bankrail --help, README.md, docs/.\n")
	return b.String()
}

// demoPayment is the smallest payment a newcomer can create with the demo
// merchant: 10.50 EUR to its EUR Connect account (so the money is expected
// there: payment_received follows COMPLETED), paid through the hosted
// checkout.
const demoPayment = `{"currency":"EUR","amount":1050,"paymentSystem":"OPEN_BANKING_EU","openBankingEU":{"type":"GOODS"},` +
	`"beneficiary":{"name":"Demo Shop","accountIdentifiers":{"iban":"` + seed.DemoEURIBAN + `"}}}`

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
