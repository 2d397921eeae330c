package client

import "strings"

// operation is one operation of api/openapi.yaml: its operationId, method,
// path template and how it is called. TestEveryOperationHasAMethod checks
// this table against the document both ways, flag by flag.
type operation struct {
	id     string // operationId; the method is the same name with an upper-case first letter
	method string
	path   string // template: "/payments/{id}"
	flags  opFlag
}

type opFlag uint8

const (
	public     opFlag = 1 << iota // no bearer token (security: [])
	versioned                     // takes X-Service-Api-Version (sent as "1" unless the params say otherwise)
	idempotent                    // takes an Idempotency-Key: one is made up when the params have none, so a retry is replayed
	repeatable                    // a POST that may be sent again without harm: retried like a GET
	formBody                      // the body is application/x-www-form-urlencoded
	ndjsonBody                    // the body is a file of JSON lines (application/x-ndjson), sent as is
)

// operations is every operation by operationId.
var operations = map[string]*operation{}

// op registers an operation; route is "METHOD /path".
func op(id, route string, flags opFlag) *operation {
	method, path, _ := strings.Cut(route, " ")
	o := &operation{id: id, method: method, path: path, flags: flags}
	if _, dup := operations[id]; dup {
		panic("client: operation " + id + " registered twice")
	}
	operations[id] = o
	return o
}

// safe reports whether the operation may be sent again after a failure
// whose outcome is unknown (a lost answer, a 5xx).
func (o *operation) safe() bool {
	return o.method == "GET" || o.flags&(idempotent|repeatable) != 0
}

// The operations of api/openapi.yaml, in its order.
var (
	opGetHome                          = op("getHome", "GET /", public)
	opCreateDemoPayment                = op("createDemoPayment", "POST /sandbox/demo-payment", public)
	opCreateToken                      = op("createToken", "POST /oauth", public|repeatable)
	opCreateLegacyToken                = op("createLegacyToken", "POST /legacy/oauth", public|repeatable|formBody)
	opGetJWKS                          = op("getJWKS", "GET /.well-known/jwks.json", public)
	opHealthz                          = op("healthz", "GET /healthz", public)
	opReadyz                           = op("readyz", "GET /readyz", public)
	opGetOpenAPI                       = op("getOpenAPI", "GET /openapi.json", public)
	opGetSandboxClock                  = op("getSandboxClock", "GET /sandbox/clock", 0)
	opAdvanceSandboxClock              = op("advanceSandboxClock", "POST /sandbox/clock/advance", 0)
	opResetSandboxClock                = op("resetSandboxClock", "POST /sandbox/clock/reset", repeatable)
	opListSandboxInbox                 = op("listSandboxInbox", "GET /sandbox/inbox", 0)
	opReceiveSandboxNotification       = op("receiveSandboxNotification", "POST /sandbox/inbox/{clientId}", public|repeatable)
	opAuthoriseSandboxPayment          = op("authoriseSandboxPayment", "POST /sandbox/payments/{id}/authorise", 0)
	opGetNotificationChaos             = op("getNotificationChaos", "GET /sandbox/notification-chaos", versioned)
	opListSandboxBankFiles             = op("listSandboxBankFiles", "GET /sandbox/bank-files", 0)
	opGetSandboxBankFile               = op("getSandboxBankFile", "GET /sandbox/bank-files/{id}", 0)
	opSetNotificationChaos             = op("setNotificationChaos", "PUT /sandbox/notification-chaos", versioned|repeatable)
	opRotateNotificationSecret         = op("rotateNotificationSecret", "POST /notification-secret/rotate", versioned)
	opResetSandbox                     = op("resetSandbox", "POST /sandbox/reset", versioned|repeatable)
	opGetSandboxSnapshot               = op("getSandboxSnapshot", "GET /sandbox/snapshot", versioned)
	opRestoreSandbox                   = op("restoreSandbox", "POST /sandbox/restore", versioned|repeatable|ndjsonBody)
	opCreatePayment                    = op("createPayment", "POST /payments", versioned|idempotent)
	opListPayments                     = op("listPayments", "GET /payments", 0)
	opGetPayment                       = op("getPayment", "GET /payments/{id}", 0)
	opGetNameMatchScore                = op("getNameMatchScore", "GET /payments/{id}/name-match-score", 0)
	opCreateLegacyPayment              = op("createLegacyPayment", "POST /legacy/payments", versioned|idempotent)
	opGetLegacyPayment                 = op("getLegacyPayment", "GET /legacy/payments/{id}", 0)
	opRequestLegacyRefund              = op("requestLegacyRefund", "POST /legacy/payments/{id}/request-refund", idempotent)
	opCancelLegacyPayment              = op("cancelLegacyPayment", "POST /legacy/payments/{id}/cancel", repeatable)
	opGetLegacyNameMatchScore          = op("getLegacyNameMatchScore", "GET /legacy/payments/{id}/name-match-score", 0)
	opGetMigrationGuide                = op("getMigrationGuide", "GET /legacy/migration-guide", public)
	opCreateDropin                     = op("createDropin", "POST /dropin", idempotent)
	opGetCheckoutLibrary               = op("getCheckoutLibrary", "GET /js/v1/checkout.js", public)
	opListBanks                        = op("listBanks", "GET /banks", 0)
	opGetBank                          = op("getBank", "GET /banks/{id}", 0)
	opGetBankLogo                      = op("getBankLogo", "GET /banks/{id}/logo.svg", public)
	opGetBankIcon                      = op("getBankIcon", "GET /banks/{id}/icon.svg", public)
	opFollowPaymentLink                = op("followPaymentLink", "GET /c/{code}", public)
	opShowCheckoutPage                 = op("showCheckoutPage", "GET /checkout/{id}", public)
	opStartEmbeddedCheckout            = op("startEmbeddedCheckout", "GET /checkout/{id}/embed", public)
	opShowCheckoutConfirmation         = op("showCheckoutConfirmation", "GET /checkout/{id}/confirm", public)
	opGoToBank                         = op("goToBank", "POST /checkout/{id}/confirm", public|formBody)
	opShowCheckoutOutcome              = op("showCheckoutOutcome", "GET /checkout/{id}/done", public)
	opGetCheckoutStyles                = op("getCheckoutStyles", "GET /checkout/static/checkout.css", public)
	opGetCheckoutFrameScript           = op("getCheckoutFrameScript", "GET /checkout/static/embed.js", public)
	opShowMockBank                     = op("showMockBank", "GET /mock-banks/{bank}/authorise/{id}", public)
	opAnswerAtMockBank                 = op("answerAtMockBank", "POST /mock-banks/{bank}/authorise/{id}", public|formBody)
	opListNotifications                = op("listNotifications", "GET /notifications", 0)
	opSendTestNotification             = op("sendTestNotification", "POST /notifications/test", repeatable)
	opResumeNotifications              = op("resumeNotifications", "POST /notifications/resume", repeatable)
	opGetNotification                  = op("getNotification", "GET /notifications/{id}", 0)
	opRedeliverNotification            = op("redeliverNotification", "POST /notifications/{id}/redeliver", repeatable)
	opMetrics                          = op("metrics", "GET /metrics", public)
	opCreateMandate                    = op("createMandate", "POST /mandates", versioned)
	opListMandates                     = op("listMandates", "GET /mandates", versioned)
	opGetMandate                       = op("getMandate", "GET /mandates/{id}", versioned)
	opSuspendMandate                   = op("suspendMandate", "POST /mandates/{id}/suspend", versioned)
	opResumeMandate                    = op("resumeMandate", "POST /mandates/{id}/resume", versioned)
	opCancelMandate                    = op("cancelMandate", "POST /mandates/{id}/cancel", versioned)
	opCreateAmendment                  = op("createAmendment", "POST /mandates/{id}/amendments", versioned)
	opGetAmendment                     = op("getAmendment", "GET /amendments/{id}", versioned)
	opRecallAmendment                  = op("recallAmendment", "POST /amendments/{id}/recall", versioned)
	opAuthoriseSandboxMandate          = op("authoriseSandboxMandate", "POST /sandbox/mandates/{id}/authorise", 0)
	opApproveSandboxAmendment          = op("approveSandboxAmendment", "POST /sandbox/amendments/{id}/approve", 0)
	opDeclineSandboxAmendment          = op("declineSandboxAmendment", "POST /sandbox/amendments/{id}/decline", 0)
	opCreatePaymentsReport             = op("createPaymentsReport", "POST /reports/payments", 0)
	opCreateRefundsReport              = op("createRefundsReport", "POST /reports/refund", 0)
	opCreatePayoutsReport              = op("createPayoutsReport", "POST /reports/payouts", 0)
	opCreateAuditLogReport             = op("createAuditLogReport", "POST /reports/auditlog", 0)
	opCreateConnectReport              = op("createConnectReport", "POST /reports/connect/{bankAccountId}", 0)
	opListReports                      = op("listReports", "GET /reports", 0)
	opGetReport                        = op("getReport", "GET /reports/{id}", 0)
	opDownloadReport                   = op("downloadReport", "GET /reports/{id}/download", 0)
	opListAccounts                     = op("listAccounts", "GET /accounts", versioned)
	opGetAccount                       = op("getAccount", "GET /accounts/{id}", versioned)
	opListAccountTransactions          = op("listAccountTransactions", "GET /accounts/{id}/transactions", versioned)
	opGetTransaction                   = op("getTransaction", "GET /transactions/{id}", versioned)
	opPayin                            = op("payin", "POST /payin", versioned|repeatable)
	opRequestRefund                    = op("requestRefund", "POST /payments/{id}/request-refund", versioned|idempotent)
	opListPaymentRefunds               = op("listPaymentRefunds", "GET /payments/{id}/refunds", versioned)
	opGetRefund                        = op("getRefund", "GET /refunds/{id}", versioned)
	opCreateChannel                    = op("createChannel", "POST /channels", versioned)
	opListChannels                     = op("listChannels", "GET /channels", versioned)
	opGetChannel                       = op("getChannel", "GET /channels/{id}", versioned)
	opListChannelPayments              = op("listChannelPayments", "GET /channels/{id}/payments", versioned)
	opGetChannelPayment                = op("getChannelPayment", "GET /channel-payments/{id}", versioned)
	opDepositSandboxChannel            = op("depositSandboxChannel", "POST /sandbox/channels/{id}/deposits", 0)
	opCreatePayout                     = op("createPayout", "POST /payouts", versioned|idempotent)
	opListPayouts                      = op("listPayouts", "GET /payouts", versioned)
	opGetPayout                        = op("getPayout", "GET /payouts/{id}", versioned)
	opCreateAliasOrder                 = op("createAliasOrder", "POST /orders/account-aliases", versioned|idempotent)
	opGetAliasOrder                    = op("getAliasOrder", "GET /orders/account-aliases/{id}", versioned)
	opListAccountAliases               = op("listAccountAliases", "GET /account-aliases", versioned)
	opGetAccountAlias                  = op("getAccountAlias", "GET /account-aliases/{id}", versioned)
	opUpdateAccountAlias               = op("updateAccountAlias", "PATCH /account-aliases/{id}", versioned|repeatable)
	opListAccountHolderVerifications   = op("listAccountHolderVerifications", "GET /account-holder-verifications", versioned)
	opGetAccountHolderVerification     = op("getAccountHolderVerification", "GET /account-holder-verifications/{id}", versioned)
	opApproveAccountHolderVerification = op("approveAccountHolderVerification", "POST /account-holder-verifications/{id}/approve", versioned)
	opRejectAccountHolderVerification  = op("rejectAccountHolderVerification", "POST /account-holder-verifications/{id}/reject", versioned)
)
