package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/oapi-codegen/oapi-codegen/v2/pkg/util"

	"github.com/bankrail/bankrail/notification"
)

// The notification package, as this command writes it from the document,
// is the committed bodies.gen.go: edit api/openapi.yaml, then run
// `go generate ./notification`.
func TestBodiesAreFresh(t *testing.T) {
	t.Parallel()
	pkg := filepath.Join("..", "..")
	code, out, err := generate(pkg, filepath.Join(pkg, "..", "api", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, code) {
		fresh := filepath.Join(t.TempDir(), filepath.Base(out))
		_ = os.WriteFile(fresh, code, 0o644)
		t.Fatalf("notification/%s is stale: it differs from what api/openapi.yaml's webhooks generate (see %s); run `go generate ./notification`", filepath.Base(out), fresh)
	}
}

// Every webhook of the document is a type the package knows (gateway is the
// empty type), and its body decodes into the struct the webhook's schema
// generated (NewBody); every type the package knows is a webhook.
func TestEveryWebhookIsAType(t *testing.T) {
	t.Parallel()
	spec, err := util.LoadSwagger(filepath.Join("..", "..", "..", "api", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hooks []string
	for name, item := range spec.Webhooks {
		typ := name
		if name == "gateway" {
			typ = notification.TypeGateway
		}
		hooks = append(hooks, typ)
		if item.Post == nil || len(item.Operations()) != 1 {
			t.Errorf("webhook %s: want one operation, a POST", name)
			continue
		}
		schema := item.Post.RequestBody.Value.Content.Get("application/json").Schema
		body := notification.NewBody(typ)
		if typ == notification.TypeTest {
			if body != nil || schema.Ref != "" {
				t.Errorf("test: NewBody gives %T, schema %q; want none", body, schema.Ref)
			}
			continue
		}
		goName, err := notificationName(schema.Value)
		if err != nil || body == nil || reflect.TypeOf(body).Elem().Name() != goName {
			t.Errorf("webhook %s (%s): NewBody gives %T, want *notification.%s", name, strings.TrimPrefix(schema.Ref, schemasPrefix), body, goName)
		}
	}
	slices.Sort(hooks)
	if types := slices.Sorted(slices.Values(notification.Types())); !slices.Equal(hooks, types) {
		t.Fatalf("webhooks %q, notification.Types() %q", hooks, types)
	}
}
