package identity_test

import (
	"context"
	"errors"
	"testing"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
)

func TestEveryOperationNeedsAKnownPermission(t *testing.T) {
	t.Parallel()
	for _, op := range identity.Operations() {
		if !identity.RoleAdmin.Can(op.Needs()) && !identity.RoleOperator.Can(op.Needs()) {
			t.Errorf("%q needs %q, which neither ADMIN nor OPERATOR has", op, op.Needs())
		}
		// The two never share a permission: a tenant's ADMIN acts on its
		// own tree, the operator on the instance and on no tenant's payments.
		if identity.RoleAdmin.Can(op.Needs()) && identity.RoleOperator.Can(op.Needs()) {
			t.Errorf("%q needs %q, which both ADMIN and OPERATOR have", op, op.Needs())
		}
	}
	if got := identity.Operation("no such operation").Needs(); got != "" {
		t.Errorf("an unknown operation needs %q, want nothing (and nobody may do it)", got)
	}
}

func TestAuthorize(t *testing.T) {
	t.Parallel()
	as := func(r identity.Role) context.Context {
		return identity.WithPrincipal(context.Background(), identity.Principal{UserID: "u", CustomerID: "c", Role: r})
	}
	for _, tc := range []struct {
		name string
		ctx  context.Context
		op   identity.Operation
		want errs.Code // "" = allowed
		msg  string
	}{
		{"no principal", context.Background(), identity.PaymentRead, errs.Unauthorised, "No one is signed in to read payments."},
		{"read-only reads", as(identity.RoleReadOnly), identity.AccountRead, "", ""},
		{"read-only changes", as(identity.RoleReadOnly), identity.RefundRequest, errs.AccessDenied, "Your role READ_ONLY does not have the payments:write permission."},
		{"read-only controls the sandbox", as(identity.RoleReadOnly), identity.SandboxAct, errs.AccessDenied, "Your role READ_ONLY does not have the sandbox:control permission."},
		{"merchant changes", as(identity.RoleMerchant), identity.PayoutCreate, "", ""},
		{"operator reads no payments", as(identity.RoleOperator), identity.PaymentRead, errs.AccessDenied, "Your role OPERATOR does not have the payments:read permission."},
		{"admin imports no statements", as(identity.RoleAdmin), identity.BankFilesImport, errs.AccessDenied, "Your role ADMIN does not have the bank:operate permission."},
		{"operator imports statements", as(identity.RoleOperator), identity.BankFilesImport, "", ""},
		{"merchant resets its tree", as(identity.RoleMerchant), identity.SandboxTree, errs.AccessDenied, "Your role MERCHANT does not have the sandbox:tree permission."},
		{"admin resets its tree", as(identity.RoleAdmin), identity.SandboxTree, "", ""},
		{"admin resets the instance", as(identity.RoleAdmin), identity.InstanceControl, errs.AccessDenied, "Your role ADMIN does not have the instance:operate permission."},
		{"operator resets the instance", as(identity.RoleOperator), identity.InstanceControl, "", ""},
		{"operator resets no tree", as(identity.RoleOperator), identity.SandboxTree, errs.AccessDenied, "Your role OPERATOR does not have the sandbox:tree permission."},
		{"unknown role", as("NOBODY"), identity.PaymentRead, errs.AccessDenied, "Your role NOBODY does not have the payments:read permission."},
		{"unknown operation", as(identity.RoleAdmin), "no such operation", errs.AccessDenied, "Nobody may no such operation: it is not a known operation."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := identity.Authorize(tc.ctx, tc.op)
			if tc.want == "" {
				if err != nil || p.UserID != "u" {
					t.Fatalf("Authorize = %+v, %v; want the principal", p, err)
				}
				return
			}
			var e *errs.Error
			if !errs.Is(err, tc.want) || !errors.As(err, &e) || e.Message != tc.msg {
				t.Fatalf("Authorize = %v; want %s %q", err, tc.want, tc.msg)
			}
		})
	}
}

func TestChangesAreWhatReadOnlyMayNotDo(t *testing.T) {
	t.Parallel()
	for _, op := range identity.Operations() {
		if op.Changes() == identity.RoleReadOnly.Can(op.Needs()) {
			t.Errorf("%q: Changes() = %v but READ_ONLY can = %v", op, op.Changes(), identity.RoleReadOnly.Can(op.Needs()))
		}
	}
	if identity.PaymentRead.Changes() || !identity.PaymentCreate.Changes() {
		t.Error("reading payments is not a change; creating one is")
	}
}
