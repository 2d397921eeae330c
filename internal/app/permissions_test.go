package app_test

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/seed"
)

// TestEveryServiceMethodAnAdapterReachesChecksItsPermission walks every
// dependency the HTTP API and the web console are given (app.AdapterDeps)
// and every method of it that takes a context: each one either checks its
// operation's permission at its entry (checkedMethods) or is exempt for a
// reason (exemptMethods). A checked method is called with zero arguments
// and a context with no principal (UNAUTHORISED), with a principal whose
// role grants nothing and, for a change, with a READ_ONLY one (both
// ACCESS_DENIED naming the permission its operation needs): a method whose
// check is removed reaches its work instead and fails here. A method in
// neither table fails, so a new one must be classified.
func TestEveryServiceMethodAnAdapterReachesChecksItsPermission(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		a := permissionsApp(t, db)
		seen := map[string]bool{}
		for _, deps := range a.AdapterDeps() {
			v := reflect.ValueOf(deps)
			for i := range v.NumField() {
				f := v.Field(i)
				if f.Kind() != reflect.Pointer && f.Kind() != reflect.Interface || f.IsNil() {
					continue
				}
				for _, m := range contextMethods(f) {
					if seen[m.key] {
						continue
					}
					seen[m.key] = true
					t.Run(m.key, func(t *testing.T) { checkMethod(t, m) })
				}
			}
		}
		for key := range checkedMethods {
			if !seen[key] {
				t.Errorf("checkedMethods names %s, which no adapter reaches", key)
			}
		}
		for key := range exemptMethods {
			if !seen[key] {
				t.Errorf("exemptMethods names %s, which no adapter reaches", key)
			}
		}
	})
}

// method is one method an adapter can call: "payment.Service.Create".
type method struct {
	key string
	fn  reflect.Value
}

var contextType = reflect.TypeFor[context.Context]()

// contextMethods are the methods of dep that take a context first: all of
// a concrete service's, or those of the interface an adapter holds it as.
func contextMethods(dep reflect.Value) []method {
	set, concrete := dep.Type(), dep
	if dep.Kind() == reflect.Interface {
		concrete = dep.Elem()
	}
	name := strings.TrimPrefix(concrete.Type().String(), "*")
	var out []method
	for i := range set.NumMethod() {
		m := set.Method(i)
		if !m.IsExported() {
			continue
		}
		fn := concrete.MethodByName(m.Name)
		if ft := fn.Type(); ft.NumIn() == 0 || ft.In(0) != contextType {
			continue
		}
		out = append(out, method{key: name + "." + m.Name, fn: fn})
	}
	return out
}

// checkMethod asks m as the callers that must be refused.
func checkMethod(t *testing.T, m method) {
	op, checked := checkedMethods[m.key]
	if _, exempt := exemptMethods[m.key]; exempt {
		if checked {
			t.Fatalf("%s is both checked and exempt", m.key)
		}
		return
	}
	if !checked {
		t.Fatalf("%s takes a context but is neither in checkedMethods (the operation whose permission it checks) nor in exemptMethods (why it needs none)", m.key)
	}
	want := fmt.Sprintf("does not have the %s permission", op.Needs())
	if err := call(m, context.Background()); !errs.Is(err, errs.Unauthorised) {
		t.Errorf("without a principal: %v, want UNAUTHORISED", err)
	}
	nobody := identity.WithPrincipal(context.Background(), identity.Principal{CustomerID: permissionsShop, Role: "NOBODY"})
	if err := call(m, nobody); !errs.Is(err, errs.AccessDenied) || !strings.Contains(err.Error(), want) {
		t.Errorf("as a role that grants nothing: %v, want ACCESS_DENIED: ... %s", err, want)
	}
	if op.Changes() {
		reader := identity.WithPrincipal(context.Background(), identity.Principal{CustomerID: permissionsShop, Role: identity.RoleReadOnly})
		if err := call(m, reader); !errs.Is(err, errs.AccessDenied) || !strings.Contains(err.Error(), want) {
			t.Errorf("as READ_ONLY (%s is a change): %v, want ACCESS_DENIED: ... %s", op, err, want)
		}
	}
}

// call calls m with ctx and zero values for its other arguments and
// returns its error; a panic (a method that went past its check on zero
// arguments) is an error too.
func call(m method, ctx context.Context) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panicked past the check: %v", v)
		}
	}()
	ft := m.fn.Type()
	args := []reflect.Value{reflect.ValueOf(ctx)}
	for i := 1; i < ft.NumIn(); i++ {
		args = append(args, reflect.Zero(ft.In(i)))
	}
	var out []reflect.Value
	if ft.IsVariadic() {
		out = m.fn.CallSlice(args)
	} else {
		out = m.fn.Call(args)
	}
	if len(out) == 0 {
		return fmt.Errorf("returns no error")
	}
	last := out[len(out)-1]
	if last.Type() != reflect.TypeFor[error]() {
		return fmt.Errorf("does not return an error last")
	}
	if last.IsNil() {
		return nil
	}
	return last.Interface().(error)
}

const permissionsShop = "52000000-0000-4000-8000-00000000000a"

// permissionsApp is a sandbox instance with one merchant (every optional
// service wired: inbox, sandbox controls, demo merchant off).
func permissionsApp(t *testing.T, db dbtest.DB) *app.App {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir, cfg.DatabaseURL, cfg.Mode = db.DataDir, db.DatabaseURL, config.Sandbox
	if db.Engine == dbtest.Postgres {
		cfg.DataDir = t.TempDir()
	}
	hp := identity.HashParams{Time: 1, Memory: 1024, Threads: 1}
	f := seed.File{Customers: []seed.Customer{{ID: permissionsShop, Name: "Permissions shop",
		Applications: []seed.Application{{ClientID: "perm-shop", ClientSecret: "perm-shop-secret", NotificationSecret: "perm-shop-n"}}}}}
	a, err := app.New(context.Background(), cfg, slog.New(slog.DiscardHandler), app.Options{HashParams: &hp, Seed: &f})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}
