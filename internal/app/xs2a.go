package app

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/checkout"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/xs2a"
	"github.com/bankrail/bankrail/internal/xs2a/aspsp"
)

// mockASPSP is the sandbox's mock ASPSP: every bank of the registry as a
// NextGenPSD2 bank at {self}/xs2a/{bankId}. Payments bankrail initiates
// there (TPP-Redirect-URI: bankrail's own checkout) follow their tenant's
// virtual clock and are authorised on the mock bank page of the checkout.
func (a *App) mockASPSP(banks *bank.Registry) *aspsp.Bank {
	return &aspsp.Bank{Banks: banks, Store: a.store, Clock: a.clock, Log: a.log.With("component", "mock-aspsp"),
		PublicURL: a.cfg.PublicURL,
		Tenant: func(ctx context.Context, redirectURI string) string {
			id, _, ok := a.checkoutReturn(redirectURI)
			if !ok {
				return ""
			}
			p, err := a.store.Payments().GetByID(ctx, id)
			if err != nil {
				return ""
			}
			return p.CustomerID
		},
		SCAPage: func(p aspsp.Payment) string {
			id, token, ok := a.checkoutReturn(p.RedirectURI)
			if !ok {
				return ""
			}
			return a.cfg.PublicURL + "/mock-banks/" + p.BankID + "/authorise/" + id + "?" +
				url.Values{"token": {token}, "aspspPaymentId": {p.ID}}.Encode()
		},
	}
}

// checkoutReturn reads bankrail's checkout return address
// ({public}/checkout/{id}/return?token=): the payment and its token.
func (a *App) checkoutReturn(address string) (id, token string, ok bool) {
	prefix := a.cfg.PublicURL + "/checkout/"
	if !strings.HasPrefix(address, prefix) {
		return "", "", false
	}
	u, err := url.Parse(address)
	if err != nil {
		return "", "", false
	}
	id, rest, found := strings.Cut(strings.TrimPrefix(u.Path, strings.TrimSuffix(mustPath(prefix), "/")+"/"), "/")
	if !found || rest != "return" {
		return "", "", false
	}
	return id, u.Query().Get("token"), true
}

// mustPath is the path of an address ("" when it does not parse).
func mustPath(address string) string {
	u, err := url.Parse(address)
	if err != nil {
		return ""
	}
	return u.Path
}

// sandboxConnector is the NextGenPSD2 connector of the sandbox: every bank
// of the registry, at the mock ASPSP over real HTTP at the instance's own
// address (config SelfURL).
func (a *App) sandboxConnector(banks *bank.Registry) *xs2a.Connector {
	dir := map[string]xs2a.Bank{}
	hc := xs2a.LoopbackClient()
	for _, b := range banks.List(bank.Filter{}) {
		dir[b.ID] = xs2a.Bank{ID: b.ID, Client: xs2a.Client{BaseURL: a.cfg.SelfURL + aspsp.Prefix + b.ID, HTTP: hc},
			Products: []string{xs2a.ProductSEPA}, Decoupled: b.ID == aspsp.DecoupledBank}
	}
	c := a.connector(dir)
	c.Creditor = &xs2a.Creditor{Name: "BANKRAIL SANDBOX", IBAN: sandboxCreditorIBAN}
	return c
}

// sandboxCreditorIBAN receives, at the mock ASPSP, the sandbox payments
// that name no beneficiary account (a valid German IBAN of no real
// account).
const sandboxCreditorIBAN = "DE89370400440532013000"

// connector is the NextGenPSD2 connector of the banks of dir. A payment's
// poll job ends in the unit of work of the move that makes it final
// (xs2a.EndPolls).
func (a *App) connector(dir map[string]xs2a.Bank) *xs2a.Connector {
	a.payments.OnMoves(xs2a.EndPolls)
	return &xs2a.Connector{Banks: dir, Store: a.store, Payments: a.store.Payments(), Move: a.payments.AtBankOutcome, Clock: a.clock,
		Log: a.log.With("component", "xs2a")}
}

// bankRegistry is the registry of banks: bankrail's, with the banks of the
// production directory it does not have; and the directory's banks.
// The directory is opts.Directory, else read from config BanksFile.
func (a *App) bankRegistry(opts *Options) (*bank.Registry, []bank.Bank, error) {
	if a.cfg.Mode == config.Sandbox {
		return bank.Default(), nil, nil
	}
	if opts.Directory == nil && a.cfg.BanksFile != "" {
		d, err := xs2a.LoadDirectory(a.cfg.BanksFile)
		if err != nil {
			return nil, nil, err
		}
		opts.Directory = &d
	}
	if opts.Directory == nil {
		return bank.Default(), nil, nil
	}
	return opts.Directory.Registry(bank.Default())
}

// psd2Connector builds the NextGenPSD2 connector and names the banks it
// reaches: in the sandbox every bank of the registry, at the mock ASPSP
// (which it builds too); in production the banks of the directory
// (directoryBanks), none without one.
func (a *App) psd2Connector(opts Options, directoryBanks []bank.Bank) (bank.Connector, []bank.Bank, error) {
	if a.cfg.Mode == config.Sandbox && opts.MockBanksInProcess {
		banks := a.payments.Banks()
		a.inProc = &aspsp.InProcess{PublicURL: a.cfg.PublicURL}
		return a.inProc, banks.List(bank.Filter{}), nil
	}
	if a.cfg.Mode == config.Sandbox {
		banks := a.payments.Banks()
		a.aspsp = a.mockASPSP(banks)
		a.xs2a = a.sandboxConnector(banks)
		return a.xs2a, banks.List(bank.Filter{}), nil
	}
	if opts.Directory == nil || len(directoryBanks) == 0 {
		return nil, nil, nil
	}
	conns, err := opts.Directory.Connections()
	if err != nil {
		return nil, nil, err
	}
	a.xs2a = a.connector(conns)
	a.log.Info("NextGenPSD2 banks connected", "banks", len(conns))
	return a.xs2a, directoryBanks, nil
}

// answerAtMockBank records the payer's answer on the mock bank page at the
// mock ASPSP, or hands it to the in-process mock banks
// (Options.MockBanksInProcess); nil in production: no mock bank page.
func (a *App) answerAtMockBank() func(ctx context.Context, bankID, paymentID, outcome, holder string) error {
	if a.inProc != nil {
		return a.inProc.Record
	}
	if a.aspsp == nil {
		return nil
	}
	return func(ctx context.Context, bankID, paymentID, outcome, holder string) error {
		_, err := a.aspsp.Answer(ctx, bankID, paymentID, outcome, holder)
		return err
	}
}

// withMockASPSP serves the mock ASPSP beside the payer's pages (sandbox).
func (a *App) withMockASPSP(pages http.Handler) http.Handler {
	if a.aspsp == nil {
		return pages
	}
	mock := a.aspsp.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, aspsp.Prefix) {
			mock.ServeHTTP(w, r)
			return
		}
		pages.ServeHTTP(w, r)
	})
}

// pagePrefixes are the prefixes the pages handler serves: the payer's
// pages, and the mock ASPSP in the sandbox.
func (a *App) pagePrefixes() []string {
	if a.aspsp == nil {
		return checkout.Prefixes
	}
	return append(slices.Clone(checkout.Prefixes), aspsp.Prefix)
}

// reachSelfAt points the sandbox's connector at the port the instance
// listens on, when its own address was derived from a port 0 (chosen at
// listening); before the server and the workers start.
func (a *App) reachSelfAt(addr string) {
	if a.aspsp == nil || a.xs2a == nil || !strings.HasSuffix(a.cfg.SelfURL, ":0") {
		return
	}
	a.cfg.SelfURL = "http://" + addr
	a.xs2a.Banks = a.sandboxConnector(a.payments.Banks()).Banks
}
