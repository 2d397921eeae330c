package dashboard

import (
	"net/http"

	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/identity"
)

// area is a part of the console: its pages and actions, and the routes
// that serve them.
type area interface {
	register(mux *http.ServeMux)
}

// areas are the console's parts, each present when its service is.
func areas(b *base) []area {
	out := []area{&signInPages{b}, &paymentPages{b}, &notificationPages{b}, &payoutPages{b}, &reportPages{b}, &accountPages{b}}
	if b.Mandates != nil {
		out = append(out, &mandatePages{b})
	}
	if b.Channels != nil {
		out = append(out, &channelPages{b})
	}
	if b.Identity != nil {
		out = append(out, &applicationPages{b})
	}
	if b.sandbox() {
		out = append(out, &sandboxPages{b})
	}
	if b.Statements != nil {
		out = append(out, &statementPages{b})
	}
	if b.Transfers != nil {
		out = append(out, &transferFilePages{b})
	}
	return out
}

// The areas.
type (
	signInPages       struct{ *base } // sign-in and sign-out
	paymentPages      struct{ *base } // payments, a payment, refunds, the sandbox's scenarios
	notificationPages struct{ *base } // notifications, redelivery, the sandbox inbox
	payoutPages       struct{ *base } // payouts and their verifications' decisions
	reportPages       struct{ *base } // reports: request, list, download
	accountPages      struct{ *base } // Connect accounts and their balances
	mandatePages      struct{ *base } // mandates and amendments
	channelPages      struct{ *base } // stablecoin channels and their deposits
	sandboxPages      struct{ *base } // the sandbox console: clock, webhook chaos, reset
	applicationPages  struct{ *base } // applications: notification URL, secret rotation
	statementPages    struct{ *base } // the operator's: bank statements, reconciliation exceptions
	transferFilePages struct{ *base } // the operator's: pain.001 files out, the bank's pain.002 in
)

func (h *signInPages) register(mux *http.ServeMux) {
	mux.HandleFunc("GET /dashboard/sign-in", h.showSignIn)
	mux.HandleFunc("POST /dashboard/sign-in", h.signIn)
	mux.HandleFunc("POST /dashboard/sign-out", h.action("", h.signOut))
}

func (h *paymentPages) register(mux *http.ServeMux) {
	mux.HandleFunc("GET /dashboard/payments", h.page(identity.PaymentRead, h.payments))
	mux.HandleFunc("GET /dashboard/payments/{id}", h.page(identity.PaymentRead, h.payment))
	mux.HandleFunc("POST /dashboard/payments/{id}/refund", h.action(identity.RefundRequest, h.refund))
	if h.sandbox() {
		mux.HandleFunc("POST /dashboard/payments/{id}/authorise", h.action(identity.SandboxAct, h.authorise))
	}
}

func (h *notificationPages) register(mux *http.ServeMux) {
	mux.HandleFunc("GET /dashboard/notifications", h.page(identity.NotifyRead, h.notifications))
	mux.HandleFunc("GET /dashboard/notifications/{id}", h.page(identity.NotifyRead, h.notification))
	mux.HandleFunc("POST /dashboard/notifications/{id}/redeliver", h.action(identity.NotifySend, h.redeliver))
	if h.sandbox() && h.Inbox != nil {
		mux.HandleFunc("GET /dashboard/inbox", h.page(identity.NotifyRead, h.inbox))
	}
}

func (h *payoutPages) register(mux *http.ServeMux) {
	mux.HandleFunc("GET /dashboard/payouts", h.page(identity.PayoutRead, h.payouts))
	mux.HandleFunc("POST /dashboard/verifications/{id}/approve", h.action(identity.PayoutVerify, h.decide(true)))
	mux.HandleFunc("POST /dashboard/verifications/{id}/reject", h.action(identity.PayoutVerify, h.decide(false)))
}

func (h *reportPages) register(mux *http.ServeMux) {
	mux.HandleFunc("GET /dashboard/reports", h.page(identity.ReportRead, h.reports))
	mux.HandleFunc("POST /dashboard/reports", h.action(identity.ReportCreate, h.requestReport))
	mux.HandleFunc("GET /dashboard/reports/{id}/download", h.page(identity.ReportRead, h.downloadReport))
}

func (h *accountPages) register(mux *http.ServeMux) {
	mux.HandleFunc("GET /dashboard/accounts", h.page(identity.AccountRead, h.accounts))
	mux.HandleFunc("GET /dashboard/accounts/{id}", h.page(identity.AccountRead, h.account))
}

func (h *sandboxPages) register(mux *http.ServeMux) {
	mux.HandleFunc("GET /dashboard/clock", h.page(identity.SandboxAct, h.clock))
	mux.HandleFunc("POST /dashboard/clock/advance", h.action(identity.SandboxAct, h.advanceClock))
	mux.HandleFunc("POST /dashboard/clock/reset", h.action(identity.SandboxAct, h.resetClock))
	if h.Settings != nil && h.Identity != nil {
		mux.HandleFunc("POST /dashboard/applications/{id}/chaos", h.action(identity.SandboxAct, h.setChaos))
	}
	if h.SandboxState != nil {
		mux.HandleFunc("GET /dashboard/sandbox/reset", h.page(identity.SandboxTree, h.confirmReset))
		mux.HandleFunc("POST /dashboard/sandbox/reset", h.action(identity.SandboxTree, h.resetSandbox))
	}
}

func (h *statementPages) register(mux *http.ServeMux) {
	mux.HandleFunc("GET /dashboard/statements", h.page(identity.BankFilesRead, h.statements))
	mux.HandleFunc("POST /dashboard/statements", h.upload(identity.BankFilesImport, orDefault(h.MaxStatementBytes, config.DefaultMaxStatementBytes), h.importStatement))
	mux.HandleFunc("GET /dashboard/reconciliation-exceptions", h.page(identity.BankFilesRead, h.exceptions))
	mux.HandleFunc("POST /dashboard/reconciliation-exceptions/{id}/resolve", h.action(identity.BankExceptions, h.resolve))
}

func (h *transferFilePages) register(mux *http.ServeMux) {
	mux.HandleFunc("GET /dashboard/transfer-files", h.page(identity.BankFilesRead, h.transferFiles))
	mux.HandleFunc("GET /dashboard/transfer-files/{id}/download", h.page(identity.BankFilesRead, h.download))
	mux.HandleFunc("POST /dashboard/transfer-status", h.upload(identity.BankFilesImport, orDefault(h.MaxStatusBytes, config.DefaultMaxStatusBytes), h.importStatus))
}
