package httpapi_test

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/bankrail/bankrail/internal/apptest"
)

// recordShape is the set of JSON keys of one record the API answers, as
// the contract (service-interface.md) or, where it is silent, decisions.md
// gives them, plus the deviations docs/decisions.md records. Each key is a
// path: "account.currency.id"; the items of an array are "statusUpdates[]".
// A path ending in "?" may be absent from an answer (an optional field);
// every other path is in every answer whose parent object is (an object
// that is null, or an empty array, has no keys to check).
type recordShape struct {
	name   string   // the record, as the table of the report names it
	schema string   // its component in api/openapi.yaml ("": not described there)
	keys   []string // the paths, see above
}

// Key sets shared by several records.
var (
	countryKeys  = []string{"id", "name"}
	currencyKeys = []string{"id", "name", "decimal", "active"}
	linkKeys     = []string{"href", "method"}
)

// under prefixes every key of keys with prefix and a dot.
func under(prefix string, keys ...string) []string {
	out := make([]string, 0, len(keys)+1)
	out = append(out, prefix)
	for _, k := range keys {
		out = append(out, prefix+"."+k)
	}
	return out
}

// join concatenates key lists.
func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// transactionKeys are the account transaction's fields (decisions.md,
// "Accounts and the ledger"), which a payout has too.
var transactionKeys = join([]string{"id", "accountId", "type", "operation", "status", "amount", "currency", "reference"},
	under("counterparty", "name", "iban"), []string{"createdAt", "updatedAt"})

// recordShapes are the records of the API, one entry each.
var recordShapes = []recordShape{
	{"token response", "TokenResponse", []string{"access_token", "token_type", "expires_in", "refresh_token"}},
	{"payment (POST /payments)", "Payment", join(
		[]string{"id", "currency", "amount", "paymentReference", "internalReference?", "paymentSystem"},
		under("openBankingEU?", "type", "institutionId?", "validityPeriod?", "provider?"), under("openBankingEU.accountIdentifiers?", "iban?"),
		under("openBankingUK?", "type", "institutionId?", "provider?"),
		under("payer?", "reference?", "firstName?", "lastName?", "organisationName?", "email?"), under("payer.accountIdentifiers?", "iban?"),
		under("sender", "name"), under("sender.accountIdentifiers", "iban?"),
		// The beneficiary repeats the identifiers given: a UK one has no IBAN (docs/decisions.md).
		under("beneficiary", "name"), under("beneficiary.accountIdentifiers", "iban?", "swiftBic?", "sortCode?", "accountNumber?"),
		under("device?", "ip?", "userAgent?", "fingerprint?"),
		[]string{"status", "transferType", "displayInfo", "displayInfo[].key", "displayInfo[].value", "createdAt", "updatedAt", "mandateId"},
		under("paymentInitiationFlow", "status"), under("paymentInitiationFlow.details", "reason"),
		under("paymentInitiationFlow.details.redirect", "url", "directUrl"))},
	{"payment details (GET /payments/{id}, GET /payments)", "PaymentDetails", join(
		[]string{"id", "active", "createdAt", "amount", "type", "uniqueReference", "status", "transferType",
			"refundAvailable", "refundNotAvailableReason", "refundNotAvailableCode",
			// bankrail's additions (docs/decisions.md, "Payments").
			"updatedAt", "customerId", "paymentSystem", "internalReference", "paymentReference"},
		under("currency", currencyKeys...),
		under("account", "id", "active", "createdAt", "nickname", "accountNumber", "iban", "swiftBic", "bankname"),
		under("account.currency", currencyKeys...), under("account.country", countryKeys...),
		under("bank", "id", "name", "officialName", "branchName", "shortBranchName", "active", "logo", "icon"), under("bank.country", countryKeys...),
		under("statusUpdates[]", "createdAt", "newStatus"), []string{"statusUpdates"},
		under("beneficiary", "id", "customerId"), under("beneficiary.accountIdentifications[]", "type", "value"),
		[]string{"beneficiary.accountIdentifications"}, under("beneficiary.country", countryKeys...),
		under("sender", "name", "email?", "ip?", "deviceFingerprint?"), under("sender.serviceConnect", "accountName", "accountNumber", "sortCode"))},
	{"name match score", "NameMatchScore", []string{"invocationId", "score"}},
	{"name match score (legacy)", "LegacyNameMatchScore", []string{"invocationId", "nameMatchScore"}},
	{"embedded checkout session (POST /dropin)", "DropinCreated", []string{"id", "token"}},
	{"legacy payment (POST /legacy/payments)", "LegacyPaymentCreated", []string{"id", "checkoutUrl"}},
	{"error", "Error", join([]string{"code", "message", "errors?"}, under("errors[]", "type", "propertyPath", "message"))},
	{"legacy error", "LegacyError", join(under("exception", "code", "message", "errorList?"), under("exception.errorList[]", "property", "message"))},
	{"account", "Account", join([]string{"id", "customerId", "type", "status", "currency", "iban", "nickname", "createdAt"},
		under("country", countryKeys...), under("balance", "available", "pending"))},
	{"account transaction", "AccountTransaction", append([]string{"paymentId?"}, transactionKeys...)},
	{"refund", "Refund", []string{"id", "paymentId", "accountId", "amount", "currency", "externalReference", "status", "createdAt", "updatedAt"}},
	{"payout", "Payout", join(transactionKeys, // a payout belongs to no payment: no paymentId
		[]string{"paymentReference", "internalReference?", "accountHolderVerificationId"},
		under("beneficiary", "name"), under("beneficiary.accountIdentifiers", "iban?", "sortCode?", "accountNumber?"),
		// SETTLEMENT payouts only (docs/decisions.md, "SETTLEMENT payouts and account aliases").
		[]string{"settledPayments?"}, under("settledPayments[]", "paymentId", "amount"))},
	{"account holder verification", "AccountHolderVerification", join(
		[]string{"id", "transactionId", "status", "result", "executedAt"}, under("accountHolderName", "requested", "returned"),
		under("decision", "type", "subject", "createdAt"), under("decision.performer", "id", "name", "type"),
		under("_links"), under("_links.self", linkKeys...), under("_links.transaction", linkKeys...))},
	{"mandate", "Mandate", join(
		[]string{"id", "customerId", "type", "status", "currency", "usedAt", "createdAt", "updatedAt",
			// the payer's link (docs/decisions.md, "Mandates and amendments").
			"authorisationUrl"},
		under("payer", "name"), under("payer.accountIdentifiers", "iban?", "sortCode?", "accountNumber?", "bsb?"),
		under("validity", "from", "to"), under("payTo?"), under("payTo.limits"), under("payTo.limits.payment", "amount"))},
	{"amendment", "Amendment", join(
		[]string{"id", "mandateId", "track", "initiator", "createdAt", "updatedAt"},
		under("status", "status"), under("status.details", "reason", "code"),
		under("changes"), under("changes.validity?", "from?", "to?"), under("changes.payTo?"), under("changes.payTo.limits"),
		under("changes.payTo.limits.payment", "amount"))},
	{"channel", "Channel", join([]string{"id", "token", "network", "currency", "address", "status", "createdAt"}, under("endUser", "reference"))},
	{"channel payment", "ChannelPayment", join([]string{"id", "channelId", "status", "createdAt", "updatedAt"},
		under("endUser", "reference"), under("transaction", "hash", "detectedAt", "confirmedAt"), under("paid", "amount", "currency"),
		under("credited", "amount", "currency"), under("rate", "value", "pair"))},
	{"alias order created", "AliasOrderCreated", []string{"id"}},
	{"alias order", "AliasOrder", join([]string{"id", "accountId", "status", "requested", "completed", "createdAt", "completedAt"},
		under("_links"), under("_links.self", linkKeys...), under("_links.aliases", linkKeys...))},
	{"account alias", "AccountAlias", []string{"id", "accountId", "orderId", "iban", "active", "createdAt"}},
	{"report created", "ReportCreated", []string{"id", "status", "createdAt"}},
	{"report", "Report", []string{"id", "type", "status", "createdAt", "generatedAt"}},
	// Notification bodies (the webhooks of api/openapi.yaml), nested
	// objects included.
	{"gateway notification", "GatewayNotification", join([]string{"payment", "reference", "merchantInternalReference?", "amount", "status", "detailedStatus"},
		under("sender?", "iban", "accountNumber", "sortCode", "name"), under("sender.bank", "id", "country", "groupName", "branchName", "bic8"))},
	{"payment_received notification", "ConnectNotification", join([]string{"payment", "reference", "merchantInternalReference?", "amount", "status", "currency", "timestamp"},
		under("sender?", "location?", "name?", "accountNumber?", "sortCode?", "iban?", "swiftBic?", "bsb?", "payID?"))},
	{"refund notification", "RefundNotification", []string{"refund", "payment", "externalReference", "amount", "currency", "status", "timestamp"}},
	{"payout notification", "PayoutNotification", []string{"payout", "accountId", "amount", "currency", "paymentReference", "status", "timestamp"}},
	{"account holder verification notification", "AccountHolderVerificationNotification",
		[]string{"accountHolderVerification", "transactionId", "status", "result", "timestamp"}},
	{"mandate notification", "MandateNotification", []string{"mandate", "amendment?", "status", "timestamp"}},
	{"channel payment notification", "ChannelPaymentNotification", join([]string{"channelPayment", "channel", "status", "timestamp"},
		under("paid", "amount", "currency"), under("credited", "amount", "currency"))},
	{"report notification", "ReportNotification", []string{"report", "type", "status", "timestamp"}},
}

// shapeNamed is the entry of recordShapes called name.
func shapeNamed(t testing.TB, name string) recordShape {
	t.Helper()
	for _, s := range recordShapes {
		if s.name == name {
			return s
		}
	}
	t.Fatalf("no record shape %q", name)
	return recordShape{}
}

// paths splits a shape's keys into the paths that must be present (when
// their parent is) and those that may be absent, without the "?" marks.
func (s recordShape) paths() (required, optional map[string]bool) {
	required, optional = map[string]bool{}, map[string]bool{}
	for _, k := range s.keys {
		p := strings.ReplaceAll(k, "?", "")
		if strings.HasSuffix(k, "?") {
			optional[p] = true
		} else {
			required[p] = true
		}
	}
	return required, optional
}

// jsonPaths walks a decoded JSON value: every key as a path (see
// recordShape), and the paths whose value is a non-empty object or an array
// holding objects, whose children are therefore expected.
func jsonPaths(v any, prefix string, keys, objects map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		if prefix != "" {
			objects[prefix] = true
		}
		for k, child := range x {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			keys[p] = true
			jsonPaths(child, p, keys, objects)
		}
	case []any:
		for _, item := range x {
			jsonPaths(item, prefix+"[]", keys, objects)
		}
	}
}

// parentOf is the path holding p ("" at the top).
func parentOf(p string) string {
	i := strings.LastIndex(p, ".")
	if i < 0 {
		return ""
	}
	return p[:i]
}

// shapeMismatches lists how an answer differs from s: a key s does not
// have, or a key s requires that is missing although its parent is there.
func (s recordShape) shapeMismatches(body []byte) []string {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return []string{"not JSON: " + err.Error()}
	}
	keys, objects := map[string]bool{}, map[string]bool{}
	jsonPaths(v, "", keys, objects)
	required, optional := s.paths()
	var out []string
	for k := range keys {
		if !required[k] && !optional[k] {
			out = append(out, "extra "+k)
		}
	}
	for k := range required {
		parent := parentOf(k)
		if strings.HasSuffix(k, "[]") || keys[k] {
			continue
		}
		if parent == "" || objects[parent] {
			out = append(out, "missing "+k)
		}
	}
	sort.Strings(out)
	return out
}

// checkShape fails the test when one of answers differs from the shape
// named name; each answer is one body of that record (an array is its
// items).
func checkShape(t *testing.T, name string, answers ...[]byte) {
	t.Helper()
	s := shapeNamed(t, name)
	reported := map[string]bool{} // each difference once
	for _, body := range answers {
		items := [][]byte{body}
		var list []json.RawMessage
		if json.Unmarshal(body, &list) == nil {
			if len(list) == 0 {
				t.Errorf("%s: an empty list proves nothing", name)
			}
			items = items[:0]
			for _, item := range list {
				items = append(items, item)
			}
		}
		for _, item := range items {
			if m := strings.Join(s.shapeMismatches(item), ", "); m != "" && !reported[m] {
				reported[m] = true
				t.Errorf("%s: %s\n%.400s", name, m, item)
			}
		}
	}
}

// schemaPaths walks a schema of the document like jsonPaths walks an
// answer: every property as a path; anyOf and oneOf branches (an object or
// null) and allOf parts add their properties.
func schemaPaths(s *openapi3.Schema, prefix string, out map[string]bool) {
	if s == nil {
		return
	}
	for _, group := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
		for _, ref := range group {
			schemaPaths(ref.Value, prefix, out)
		}
	}
	if s.Items != nil {
		schemaPaths(s.Items.Value, prefix+"[]", out)
	}
	for name, ref := range s.Properties {
		p := name
		if prefix != "" {
			p = prefix + "." + name
		}
		out[p] = true
		schemaPaths(ref.Value, p, out)
	}
}

// Each record's schema in api/openapi.yaml has exactly the keys of its
// shape: the document, the generated types and the SDK cannot carry a field
// the contract does not give (or lack one it does).
func TestRecordSchemasHaveTheContractsKeys(t *testing.T) {
	t.Parallel()
	doc, err := apptest.Spec()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range recordShapes {
		if s.schema == "" {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			ref := doc.Components.Schemas[s.schema]
			if ref == nil {
				t.Fatalf("no schema %s in api/openapi.yaml", s.schema)
			}
			got := map[string]bool{}
			schemaPaths(ref.Value, "", got)
			required, optional := s.paths()
			var extra, missing []string
			for k := range got {
				if !required[k] && !optional[k] {
					extra = append(extra, k)
				}
			}
			for k := range required {
				if !got[k] && !strings.HasSuffix(k, "[]") {
					missing = append(missing, k)
				}
			}
			for k := range optional {
				if !got[k] && !strings.HasSuffix(k, "[]") {
					missing = append(missing, k)
				}
			}
			slices.Sort(extra)
			slices.Sort(missing)
			if len(extra)+len(missing) > 0 {
				t.Fatalf("schema %s: extra %v, missing %v", s.schema, extra, missing)
			}
		})
	}
}
