package apptest

import (
	"encoding/json"
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/bankrail/bankrail/notification"
)

// uuidFormat checks format uuid, which kin-openapi leaves unchecked by
// default: every id in a notification is a uuid (of any version: bankrail
// makes v7, which kin-openapi's RFC 4122 pattern refuses).
var uuidFormat = openapi3.WithStringFormatValidator("uuid",
	openapi3.NewRegexpFormatValidator(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`))

// NotificationMismatch validates a notification's body against the schema of
// its webhook in the document (the webhook named by typ, its X-Service-Type;
// "gateway" for the empty type): nil when it matches. An undocumented type
// is a mismatch.
func NotificationMismatch(typ string, body []byte) error {
	doc, err := Spec()
	if err != nil {
		return err
	}
	name := typ
	if typ == notification.TypeGateway {
		name = "gateway"
	}
	hook := doc.Webhooks[name]
	if hook == nil || hook.Post == nil || hook.Post.RequestBody == nil {
		return fmt.Errorf("OpenAPI: notification type %q has no webhook in api/openapi.yaml", typ)
	}
	media := hook.Post.RequestBody.Value.Content.Get("application/json")
	if media == nil || media.Schema == nil {
		return fmt.Errorf("OpenAPI: webhook %s has no application/json body", name)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("OpenAPI: %s body is not JSON: %w", name, err)
	}
	if err := media.Schema.Value.VisitJSON(v, openapi3.MultiErrors(), openapi3.EnableFormatValidation(),
		openapi3.EnableJSONSchema2020(), openapi3.VisitAsRequest(), uuidFormat); err != nil {
		return fmt.Errorf("OpenAPI: %s body does not match its webhook in api/openapi.yaml: %w\nbody: %s", name, err, body)
	}
	return nil
}
