package httpapi

import "github.com/bankrail/bankrail/internal/identity"

// routes registers every endpoint. Each feature keeps its handlers in a file
// of its own; this is the one list of what the API serves.
func (s *Server) routes() {
	// Operations and discovery.
	s.handle("GET /healthz", s.healthz, public)
	s.handle("GET /readyz", s.readyz, public)
	s.handle("GET /openapi.json", s.openAPI, public)
	s.handle("GET /.well-known/jwks.json", s.jwks, public)

	// OAuth: Global (JSON) and legacy (form encoded).
	s.handle("POST /oauth", s.token, public)
	s.handle("POST /legacy/oauth", s.token, public, legacy)

	// Payments (Global API), the bank registry and the payer's short links.
	if s.Payments != nil {
		s.handle("POST /payments", s.createPayment, needs(identity.PaymentsWrite), versioned)
		s.handle("GET /payments", s.listPayments, needs(identity.PaymentsRead))
		s.handle("GET /payments/{id}", s.getPayment, needs(identity.PaymentsRead))
		s.handle("GET /payments/{id}/name-match-score", s.nameMatchScore, needs(identity.PaymentsRead))
		s.handle("GET /banks", s.listBanks, needs(identity.PaymentsRead))
		s.handle("GET /banks/{id}", s.getBank, needs(identity.PaymentsRead))
		s.handle("GET /banks/{id}/logo.svg", s.bankImage, public)
		s.handle("GET /banks/{id}/icon.svg", s.bankImage, public)
		s.handle("GET /c/{code}", s.followShortLink, public)
	}
	// The legacy Payments API and the embedded checkout, on the same core.
	if s.Legacy != nil {
		s.handle("POST /legacy/payments", s.createLegacyPayment, needs(identity.PaymentsWrite), legacyVersioned, legacy)
		s.handle("GET /legacy/payments/{id}/name-match-score", s.legacyNameMatchScore, needs(identity.PaymentsRead), legacy)
		s.handle("GET /legacy/migration-guide", s.migrationGuide, public, legacy)
		s.handle("POST /dropin", s.createDropin, needs(identity.PaymentsWrite))
	}
	// The payer's pages (HTML, their own routing and error pages).
	if s.Pages != nil {
		for _, prefix := range s.PagePrefixes {
			s.mount(prefix, s.Pages)
		}
	}
	// Notifications: the delivery log, redelivery, the test notification and resume.
	if s.Notifications != nil {
		s.handle("GET /notifications", s.listNotifications, needs(identity.NotificationsRead))
		s.handle("GET /notifications/{id}", s.getNotification, needs(identity.NotificationsRead))
		s.handle("POST /notifications/{id}/redeliver", s.redeliverNotification, needs(identity.NotificationsWrite))
		s.handle("POST /notifications/test", s.testNotification, needs(identity.NotificationsWrite))
		s.handle("POST /notifications/resume", s.resumeNotifications, needs(identity.NotificationsWrite))
	}
	// The Accounts API: Connect accounts and their transactions (the ledger).
	if s.Accounts != nil {
		s.handle("GET /accounts", s.listAccounts, needs(identity.PaymentsRead), versioned)
		s.handle("GET /accounts/{id}", s.getAccount, needs(identity.PaymentsRead), versioned)
		s.handle("GET /accounts/{id}/transactions", s.listAccountTransactions, needs(identity.PaymentsRead), versioned)
		s.handle("GET /transactions/{id}", s.getTransaction, needs(identity.PaymentsRead), versioned)
	}
	// Refunds of Connect payments.
	if s.Refunds != nil {
		s.handle("POST /payments/{id}/request-refund", s.requestRefund, needs(identity.PaymentsWrite), versioned)
		s.handle("GET /payments/{id}/refunds", s.listPaymentRefunds, needs(identity.PaymentsRead), versioned)
		s.handle("GET /refunds/{id}", s.getRefund, needs(identity.PaymentsRead), versioned)
	}
	if s.Metrics != nil {
		s.handle("GET /metrics", s.metrics, public)
	}

	// Sandbox controls.
	if s.Sandbox != nil {
		s.handle("GET /sandbox/clock", s.sandboxClock, needs(identity.SandboxControl))
		s.handle("POST /sandbox/clock/advance", s.advanceSandboxClock, needs(identity.SandboxControl))
		if s.Inbox != nil {
			s.handle("GET /sandbox/inbox", s.listSandboxInbox, needs(identity.NotificationsRead))
			s.handle("POST /sandbox/inbox/{clientId}", s.receiveSandboxNotification, public)
		}
		if s.Payments != nil {
			s.handle("POST /sandbox/payments/{id}/authorise", s.authoriseSandboxPayment, needs(identity.SandboxControl))
		}
		if s.Payments != nil && s.Accounts != nil {
			s.handle("POST /payin", s.payin, needs(identity.SandboxControl), versioned)
		}
	}
}
