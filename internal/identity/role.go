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
	RoleAdmin    Role = "ADMIN"     // everything, including the sandbox controls
	RoleMerchant Role = "MERCHANT"  // take payments, read and act on them
	RoleReadOnly Role = "READ_ONLY" // read only
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
	// SandboxInstance acts on the whole sandbox instance, every customer's
	// data at once (reset, snapshot, restore): ADMIN only.
	SandboxInstance Permission = "sandbox:instance"
)

var rolePermissions = map[Role][]Permission{
	RoleAdmin: {PaymentsRead, PaymentsWrite, NotificationsRead, NotificationsWrite,
		ReportsRead, ReportsWrite, SandboxControl, SandboxInstance},
	RoleMerchant: {PaymentsRead, PaymentsWrite, NotificationsRead, NotificationsWrite,
		ReportsRead, ReportsWrite, SandboxControl},
	RoleReadOnly: {PaymentsRead, NotificationsRead, ReportsRead},
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
