package identity

import (
	"maps"
	"slices"
)

// Operation is one thing a caller asks a service to do. It needs exactly
// one permission (Needs): this table is the only place that says which, and
// the services (Authorize at each method's entry), the API's route table and
// the console's pages all read it.
type Operation string

// Operations of the services that act for a caller.
const (
	PaymentCreate  Operation = "create a payment"
	PaymentRead    Operation = "read payments"
	PaymentCancel  Operation = "cancel a payment"
	RefundRequest  Operation = "request a refund"
	RefundRead     Operation = "read refunds"
	PayoutCreate   Operation = "create a payout"
	PayoutRead     Operation = "read payouts"
	PayoutVerify   Operation = "decide an account holder verification"
	MandateCreate  Operation = "create a mandate"
	MandateRead    Operation = "read mandates"
	MandateChange  Operation = "change a mandate"
	ChannelCreate  Operation = "create a channel"
	ChannelRead    Operation = "read channels"
	AliasOrder     Operation = "order account aliases"
	AliasRead      Operation = "read account aliases"
	AliasChange    Operation = "change an account alias"
	AccountRead    Operation = "read accounts"
	HistoryRead    Operation = "read the history of payments and mandates"
	ReportCreate   Operation = "create a report"
	ReportRead     Operation = "read reports"
	NotifyRead     Operation = "read notifications"
	NotifySend     Operation = "send notifications"
	AppRead        Operation = "read applications"
	CustomerRead   Operation = "read the names of customers"
	AppChange      Operation = "change an application"
	SandboxAct     Operation = "act in the sandbox"
	SandboxTree    Operation = "snapshot, restore and reset the own customer tree"
	SandboxObserve Operation = "read the sandbox's notification settings"
	// The operator's operations (RoleOperator).
	InstanceControl Operation = "act on the whole instance"
	BankFilesRead   Operation = "read the files exchanged with the bank"
	BankFilesImport Operation = "import the bank's files"
	BankExceptions  Operation = "resolve reconciliation exceptions"
)

var operationPermissions = map[Operation]Permission{
	PaymentCreate:   PaymentsWrite,
	PaymentRead:     PaymentsRead,
	PaymentCancel:   PaymentsWrite,
	RefundRequest:   PaymentsWrite,
	RefundRead:      PaymentsRead,
	PayoutCreate:    PaymentsWrite,
	PayoutRead:      PaymentsRead,
	PayoutVerify:    PaymentsWrite,
	MandateCreate:   PaymentsWrite,
	MandateRead:     PaymentsRead,
	MandateChange:   PaymentsWrite,
	ChannelCreate:   PaymentsWrite,
	ChannelRead:     PaymentsRead,
	AliasOrder:      PaymentsWrite,
	AliasRead:       PaymentsRead,
	AliasChange:     PaymentsWrite,
	AccountRead:     PaymentsRead,
	HistoryRead:     PaymentsRead,
	ReportCreate:    ReportsWrite,
	ReportRead:      ReportsRead,
	NotifyRead:      NotificationsRead,
	NotifySend:      NotificationsWrite,
	AppRead:         NotificationsRead,
	CustomerRead:    PaymentsRead, // every role has it
	AppChange:       NotificationsWrite,
	SandboxAct:      SandboxControl,
	SandboxTree:     SandboxTreeControl,
	SandboxObserve:  NotificationsRead,
	InstanceControl: InstanceOperate,
	BankFilesRead:   BankOperate,
	BankFilesImport: BankOperate,
	BankExceptions:  BankOperate,
}

// Needs is the permission op needs (empty for an unknown operation, which
// nothing is granted).
func (op Operation) Needs() Permission { return operationPermissions[op] }

// Changes reports whether op needs a permission a READ_ONLY user lacks.
func (op Operation) Changes() bool { return !RoleReadOnly.Can(op.Needs()) }

// Operations lists every operation, sorted.
func Operations() []Operation { return slices.Sorted(maps.Keys(operationPermissions)) }
