package identity

import (
	"fmt"
	"slices"
	"strings"
)

// Role is a named set of permissions given to a user.
type Role string

// Roles.
const (
	RoleAdmin    Role = "ADMIN"     // everything of its customer tree, including its sandbox snapshot, restore and reset
	RoleMerchant Role = "MERCHANT"  // take payments, read and act on them
	RoleReadOnly Role = "READ_ONLY" // read only
	// RoleOperator is the instance's operator: the provider's own staff who
	// connect it to its bank and run it, never a merchant. An operator acts
	// on the whole instance (its controls, bank statements, transfer files,
	// reconciliation exceptions) and on no customer's payments: the role has
	// none of the merchant permissions, so every merchant operation refuses
	// it. Only the admin CLI (database access) makes an operator; no API
	// grants the role.
	RoleOperator Role = "OPERATOR"
)

// Permission is one action a role may take.
type Permission string

// Permissions. Endpoints name the permission they need.
const (
	PaymentsRead       Permission = "payments:read"
	PaymentsWrite      Permission = "payments:write"
	NotificationsRead  Permission = "notifications:read"
	NotificationsWrite Permission = "notifications:write"
	ReportsRead        Permission = "reports:read"
	ReportsWrite       Permission = "reports:write"
	SandboxControl     Permission = "sandbox:control"
	// SandboxTreeControl snapshots, restores and resets the user's own
	// customer tree in the sandbox (its customer and those below it, never
	// another's): ADMIN only. The whole instance is the operator's
	// (InstanceOperate).
	SandboxTreeControl Permission = "sandbox:tree"
	// InstanceOperate acts on the whole instance, every customer's data at
	// once: the operator's.
	InstanceOperate Permission = "instance:operate"
	// BankOperate exchanges files with the instance's bank (statements in,
	// transfer files out, the bank's answers) and resolves reconciliation
	// exceptions: the operator's.
	BankOperate Permission = "bank:operate"
)

var rolePermissions = map[Role][]Permission{
	RoleAdmin: {PaymentsRead, PaymentsWrite, NotificationsRead, NotificationsWrite,
		ReportsRead, ReportsWrite, SandboxControl, SandboxTreeControl},
	RoleMerchant: {PaymentsRead, PaymentsWrite, NotificationsRead, NotificationsWrite,
		ReportsRead, ReportsWrite, SandboxControl},
	RoleReadOnly: {PaymentsRead, NotificationsRead, ReportsRead},
	RoleOperator: {InstanceOperate, BankOperate},
}

// ParseRole validates a role name.
func ParseRole(s string) (Role, error) {
	r := Role(strings.ToUpper(strings.TrimSpace(s)))
	if _, ok := rolePermissions[r]; !ok {
		return "", fmt.Errorf("unknown role %q (want one of %s)", s, strings.Join(RoleNames(), ", "))
	}
	return r, nil
}

// RoleNames lists the known roles, sorted.
func RoleNames() []string {
	names := make([]string, 0, len(rolePermissions))
	for r := range rolePermissions {
		names = append(names, string(r))
	}
	slices.Sort(names)
	return names
}

// Can reports whether the role grants p.
func (r Role) Can(p Permission) bool {
	return slices.Contains(rolePermissions[r], p)
}
