package httpapi_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/apptest"
)

// A model of a real client of the legacy API: the connector for the
// provider in the payment platform Hyperswitch (juspay/hyperswitch,
// Apache-2.0), crates/hyperswitch_connectors/src/connectors/volt.rs and
// volt/transformers.rs. Each call is built from the connector's source
// (the functions are named at each one): the URL it joins to its base
// URL, its headers, its body, and what it deserialises from the answer
// with serde (deserialise: a missing field that is not an Option fails,
// null or missing Option fields are None, a string outside an enum fails,
// unknown fields are ignored, untagged enums try their variants in order).
// The connector names the provider's headers X-Volt-...; the contract's
// are X-Service-... (service-interface.md, Conventions), so this model
// sends and reads those.
//
// Versions: the create body, its answer and the error shape are those of
// transformers.rs at commit ebf001a887b6 (VoltPaymentsRequest with
// currencyCode and a shopper whose names are first_name/last_name: the
// legacy API's request); the cancel (ConnectorIntegration<Void>, POST
// {base}/payments/{id}/cancel, VoltCancelResponse) and the wider
// VoltPaymentStatus are of a later version, which has the same token,
// read, refund and webhook code.

// platformClient is the connector, configured with one base URL.
type platformClient struct {
	env  *apptest.Env
	base string // the path of the base URL on env (the connector's connectors.volt.base_url)
	auth apptest.Login
	// token is the access token (AccessToken.token), kept between calls.
	token string
}

// field is one field of a struct the connector deserialises: its JSON
// name (after serde's rename_all), an alias, its kind, whether it is an
// Option, and its enum's values (nil: any value of the kind).
type field struct {
	name, alias string
	kind        string // "string" or "integer"
	option      bool
	enum        []string
}

// deserialise does what serde_json's derived Deserialize of a struct of
// these fields does with body, and returns the fields it read.
func deserialise(body []byte, fields ...field) (map[string]any, error) {
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	out := map[string]any{}
	for _, f := range fields {
		v, ok := obj[f.name]
		if !ok && f.alias != "" {
			v, ok = obj[f.alias]
		}
		if !ok || v == nil {
			if f.option {
				continue
			}
			return nil, fmt.Errorf("missing field `%s`", f.name)
		}
		switch f.kind {
		case "integer":
			n, isNum := v.(float64)
			if !isNum || n != float64(int64(n)) {
				return nil, fmt.Errorf("field `%s`: invalid type %T, expected an integer", f.name, v)
			}
		default:
			s, isStr := v.(string)
			if !isStr {
				return nil, fmt.Errorf("field `%s`: invalid type %T, expected a string", f.name, v)
			}
			if f.enum != nil && !slices.Contains(f.enum, s) {
				return nil, fmt.Errorf("field `%s`: unknown variant `%s`, expected one of %v", f.name, s, f.enum)
			}
		}
		out[f.name] = v
	}
	return out, nil
}

// Enums of transformers.rs (#[serde(rename_all = "SCREAMING_SNAKE_CASE")]).
var (
	// VoltPaymentStatus, of the later version (the legacy-era one lacks
	// APPROVED_BY_RISK, ADDITIONAL_AUTHORIZATION_REQUIRED,
	// AUTHORISED_BY_USER, PROVIDER_COMMUNICATION_ERROR and UNKNOWN).
	voltPaymentStatus = []string{"NEW_PAYMENT", "APPROVED_BY_RISK", "ADDITIONAL_AUTHORIZATION_REQUIRED", "AUTHORISED_BY_USER",
		"PROVIDER_COMMUNICATION_ERROR", "COMPLETED", "RECEIVED", "NOT_RECEIVED", "BANK_REDIRECT", "DELAYED_AT_BANK",
		"AWAITING_CHECKOUT_AUTHORISATION", "REFUSED_BY_BANK", "REFUSED_BY_RISK", "ERROR_AT_BANK", "CANCELLED_BY_USER",
		"ABANDONED_BY_USER", "FAILED", "SETTLED", "UNKNOWN"}
	voltWebhookPaymentStatus = []string{"COMPLETED", "FAILED", "PENDING", "RECEIVED", "NOT_RECEIVED"}
	voltWebhookRefundsStatus = []string{"REFUND_CONFIRMED", "REFUND_FAILED"}
	voltDetailedStatus       = []string{"REFUSED_BY_RISK", "REFUSED_BY_BANK", "ERROR_AT_BANK", "CANCELLED_BY_USER",
		"ABANDONED_BY_USER", "FAILED", "COMPLETED", "BANK_REDIRECT", "DELAYED_AT_BANK", "AWAITING_CHECKOUT_AUTHORISATION"}
)

// attemptStatus is get_attempt_status (transformers.rs): Hyperswitch's
// attempt status of a VoltPaymentStatus.
func attemptStatus(s string) string {
	switch s {
	case "RECEIVED", "SETTLED":
		return "Charged"
	case "COMPLETED", "DELAYED_AT_BANK", "AUTHORISED_BY_USER", "APPROVED_BY_RISK":
		return "Pending"
	case "NEW_PAYMENT", "BANK_REDIRECT", "AWAITING_CHECKOUT_AUTHORISATION", "ADDITIONAL_AUTHORIZATION_REQUIRED":
		return "AuthenticationPending"
	case "UNKNOWN":
		return "unchanged"
	}
	return "Failure"
}

// headers is ConnectorCommonExt::build_headers (volt.rs): every call but
// the token's.
func (c *platformClient) headers() map[string]string {
	return map[string]string{"Content-Type": "application/json", "Accept": "application/json",
		"Authorization": "Bearer " + c.token, "Idempotency-Key": uuid.NewString(),
		"X-Service-Api-Version": "1", "X-Service-Initiation-Channel": "hosted"}
}

// call sends one request of the connector and returns the answer.
func (c *platformClient) call(t *testing.T, method, path string, headers map[string]string, body any) *apptest.Response {
	t.Helper()
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	req := apptest.Request{Method: method, Path: c.base + path, Header: headers}
	if raw != nil {
		req.Body = raw
	}
	return c.env.Do(t, req)
}

// errorOf is build_error_response (volt.rs) with the legacy-era
// VoltErrorResponse {exception: VoltErrorException {code, message,
// errorList?: [{property, message}]}}: the reason it gives, or why it
// cannot parse the answer.
func errorOf(resp *apptest.Response) (string, error) {
	var e struct {
		Exception json.RawMessage `json:"exception"`
	}
	if err := json.Unmarshal(resp.Body, &e); err != nil || e.Exception == nil {
		return "", fmt.Errorf("missing field `exception` in %s", resp.Body)
	}
	ex, err := deserialise(e.Exception, field{name: "code", kind: "integer"}, field{name: "message"})
	if err != nil {
		return "", err
	}
	return ex["message"].(string), nil
}

// getToken is ConnectorIntegration<AccessTokenAuth> (volt.rs): POST
// {base}/oauth with VoltAuthUpdateRequest as JSON; VoltAuthUpdateResponse
// on success, VoltAuthErrorResponse {code: u64, message} on failure
// (get_error_response: "auth error have different structure").
func (c *platformClient) getToken(t *testing.T, password string) (token string, status int, errMessage string) {
	t.Helper()
	resp := c.call(t, "POST", "/oauth", map[string]string{"Content-Type": "application/json"}, map[string]string{
		"grant_type": "password", "client_id": c.auth.ClientID, "client_secret": c.auth.ClientSecret,
		"username": c.auth.Username, "password": password})
	if resp.Status != http.StatusOK {
		e, err := deserialise(resp.Body, field{name: "code", kind: "integer"}, field{name: "message"})
		if err != nil {
			t.Fatalf("the connector cannot parse the token error %d %s: %v", resp.Status, resp.Body, err)
		}
		if int(e["code"].(float64)) != resp.Status {
			t.Fatalf("token error code %v, status %d", e["code"], resp.Status)
		}
		return "", resp.Status, e["message"].(string)
	}
	tok, err := deserialise(resp.Body, field{name: "access_token"}, field{name: "token_type"},
		field{name: "expires_in", kind: "integer"}, field{name: "refresh_token"})
	if err != nil {
		t.Fatalf("the connector cannot parse the token %s: %v", resp.Body, err)
	}
	return tok["access_token"].(string), resp.Status, ""
}

// authorize is ConnectorIntegration<Authorize> (volt.rs): POST
// {base}/payments with VoltPaymentsRequest (legacy era: currencyCode, type
// SERVICES, merchantInternalReference = the attempt's reference, a
// ShopperDetails without rename_all, so first_name/last_name, and the
// router's return URL as all four URLs); VoltPaymentsResponse {checkoutUrl,
// id} back.
func (c *platformClient) authorize(t *testing.T, amount int64, currency, attempt, customer, email, first, last, returnURL string) (id, checkoutURL string) {
	t.Helper()
	body := map[string]any{"amount": amount, "currencyCode": currency, "type": "SERVICES", "merchantInternalReference": attempt,
		"shopper":           map[string]any{"reference": customer, "email": email, "first_name": first, "last_name": last},
		"paymentSuccessUrl": returnURL, "paymentFailureUrl": returnURL, "paymentPendingUrl": returnURL, "paymentCancelUrl": returnURL}
	resp := c.call(t, "POST", "/payments", c.headers(), body)
	if resp.Status/100 != 2 {
		reason, err := errorOf(resp)
		t.Fatalf("authorize: %d %q (%v)", resp.Status, reason, err)
	}
	p, err := deserialise(resp.Body, field{name: "checkoutUrl"}, field{name: "id"})
	if err != nil {
		t.Fatalf("the connector cannot parse the created payment %s: %v", resp.Body, err)
	}
	return p["id"].(string), p["checkoutUrl"].(string)
}

// psync is ConnectorIntegration<PSync> (volt.rs): GET {base}/payments/{id};
// VoltPaymentsResponseData, whose first variant VoltPsyncResponse is
// {status: VoltPaymentStatus, id, merchantInternalReference?, amount,
// currency} (the later version added amount and currency).
func (c *platformClient) psync(t *testing.T, id string) map[string]any {
	t.Helper()
	resp := c.call(t, "GET", "/payments/"+id, c.headers(), nil)
	if resp.Status != http.StatusOK {
		reason, err := errorOf(resp)
		t.Fatalf("psync %s: %d %q (%v)", id, resp.Status, reason, err)
	}
	p, err := deserialise(resp.Body, field{name: "status", enum: voltPaymentStatus}, field{name: "id"},
		field{name: "merchantInternalReference", option: true}, field{name: "amount", kind: "integer"}, field{name: "currency"})
	if err != nil {
		t.Fatalf("the connector cannot parse the payment %s: %v", resp.Body, err)
	}
	return p
}

// refund is ConnectorIntegration<Execute> (volt.rs): POST
// {base}/payments/{id}/request-refund with VoltRefundRequest {amount,
// externalReference = Hyperswitch's refund id}; RefundResponse {id}, the
// refund then Pending ("We get Refund Status only by Webhooks").
func (c *platformClient) refund(t *testing.T, paymentID string, amount int64, refundID string) string {
	t.Helper()
	resp := c.call(t, "POST", "/payments/"+paymentID+"/request-refund", c.headers(),
		map[string]any{"amount": amount, "externalReference": refundID})
	if resp.Status/100 != 2 {
		reason, err := errorOf(resp)
		t.Fatalf("refund: %d %q (%v)", resp.Status, reason, err)
	}
	f, err := deserialise(resp.Body, field{name: "id"})
	if err != nil {
		t.Fatalf("the connector cannot parse the refund %s: %v", resp.Body, err)
	}
	return f["id"].(string)
}

// void is ConnectorIntegration<Void> (volt.rs): POST
// {base}/payments/{id}/cancel without a body; VoltCancelResponse
// {paymentId, status: VoltPaymentStatus} on success, else the error's
// reason (build_error_response).
func (c *platformClient) void(t *testing.T, paymentID string) (status int, cancelled map[string]any, reason string) {
	t.Helper()
	resp := c.call(t, "POST", "/payments/"+paymentID+"/cancel", c.headers(), nil)
	if resp.Status/100 != 2 {
		reason, err := errorOf(resp)
		if err != nil {
			t.Fatalf("the connector cannot parse the cancel's error %d %s: %v", resp.Status, resp.Body, err)
		}
		return resp.Status, nil, reason
	}
	v, err := deserialise(resp.Body, field{name: "paymentId"}, field{name: "status", enum: voltPaymentStatus})
	if err != nil {
		t.Fatalf("the connector cannot parse the cancel %s: %v", resp.Body, err)
	}
	return resp.Status, v, ""
}

// verifyWebhook is the connector's IncomingWebhook source verification
// (volt.rs): algorithm HmacSha256 (get_webhook_source_verification_algorithm);
// the signature is the hex-decoded signed header
// (get_webhook_source_verification_signature); the message is
// "{body}|{timed header}|{version}", the version being what follows the
// last "/" of User-Agent (get_webhook_source_verification_message).
func verifyWebhook(secret string, h http.Header, body []byte) bool {
	sig, err := hex.DecodeString(h.Get("X-Service-Signed"))
	if err != nil {
		return false
	}
	ua := h.Get("User-Agent")
	version := ua[strings.LastIndex(ua, "/")+1:]
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(string(body) + "|" + h.Get("X-Service-Timed") + "|" + version))
	return hmac.Equal(m.Sum(nil), sig)
}

// webhookObject is get_webhook_resource_object (volt.rs):
// VoltWebhookObjectResource, untagged, Payment first:
// VoltPaymentWebhookObjectResource {payment (alias id),
// merchantInternalReference?, status: VoltWebhookPaymentStatus,
// detailedStatus?: VoltDetailedStatus}, then
// VoltRefundWebhookObjectResource {refund, externalReference?, status:
// VoltWebhookRefundsStatus}. It returns the variant and its fields, or
// why neither parses.
func webhookObject(body []byte) (string, map[string]any, error) {
	p, perr := deserialise(body, field{name: "payment", alias: "id"}, field{name: "merchantInternalReference", option: true},
		field{name: "status", enum: voltWebhookPaymentStatus}, field{name: "detailedStatus", option: true, enum: voltDetailedStatus})
	if perr == nil {
		return "Payment", p, nil
	}
	r, rerr := deserialise(body, field{name: "refund"}, field{name: "externalReference", option: true},
		field{name: "status", enum: voltWebhookRefundsStatus})
	if rerr == nil {
		return "Refund", r, nil
	}
	return "", nil, fmt.Errorf("as a payment: %w; as a refund: %w", perr, rerr)
}

// webhookEvent is get_webhook_event_type with
// From<VoltWebhookBodyEventType> for IncomingWebhookEvent (transformers.rs).
func webhookEvent(variant, status string) string {
	switch {
	case variant == "Refund" && status == "REFUND_CONFIRMED":
		return "RefundSuccess"
	case variant == "Refund":
		return "RefundFailure"
	case status == "RECEIVED":
		return "PaymentIntentSuccess"
	case status == "FAILED" || status == "NOT_RECEIVED":
		return "PaymentIntentFailure"
	}
	return "PaymentIntentProcessing"
}
