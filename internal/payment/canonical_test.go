package payment

import (
	"encoding/json"
	"reflect"
	"testing"
)

// fullRequest is a request with every field given, none empty.
const fullRequest = `{"currency":"EUR","amount":1050,"internalReference":"order-42 <&>","paymentReference":"Order 42",` +
	`"payer":{"reference":"cust-1","firstName":"Anna","lastName":"Müller","organisationName":"Org","email":"anna@example.com",` +
	`"accountIdentifiers":{"iban":"DE89370400440532013000","swiftBic":"COBADEFFXXX","sortCode":"040004","accountNumber":"12345678"}},` +
	`"device":{"ip":"203.0.113.7","userAgent":"UA","fingerprint":"fp"},"paymentSystem":"OPEN_BANKING_EU",` +
	`"openBankingEU":{"type":"GOODS","institutionId":"ba4c0276-0000-4000-8000-000000000001","statementDescriptor":"SHOP",` +
	`"validityPeriod":3600,"accountIdentifiers":{"iban":"DE89370400440532013000"}},` +
	`"openBankingUK":{"type":"BILL","institutionId":"x"},` +
	`"beneficiary":{"name":"Test Shop GmbH","accountIdentifiers":{"iban":"DE02120300000000202051"}},` +
	`"communication":{"notifications":{"url":"https://shop.example/n"},"return":{"urls":{"unified":{"url":"https://shop.example/u"},` +
	`"success":{"url":"https://shop.example/s"},"failure":{"url":"https://shop.example/f"},"pending":{"url":"https://shop.example/p"},` +
	`"cancel":{"url":"https://shop.example/c"}},"queryString":"order=42"}},` +
	`"checkout":{"hosted":{"countries":{"available":["DE","AT"]}}},"displayInfo":[{"key":"Order","value":"42"}],` +
	`"termsAndConditionsAccepted":true}`

// The canonical encoding is, byte for byte, the JSON the request had while
// the domain types carried JSON tags, and so are the fingerprints: the
// expected values below were computed by the last version with tags
// (commit 6ab981e^), so an Idempotency-Key stored by it replays.
func TestFingerprintStableAcrossTagRemoval(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ body, canonical, api, hosted string }{
		{`{"currency":"EUR","amount":5}`, `{"currency":"EUR","amount":5,"paymentSystem":""}`,
			"a06af04bec90027d6046a23c8d88e78d15a6ddd0228f6433d8d87ee32b89ec75",
			"2291f5e712248606560f61ffa70140a41b807f25e238957a49b7b573657153d6"},
		{`{}`, `{"currency":"","amount":null,"paymentSystem":""}`,
			"44c0e4a34aefb8bc2af12fc64669a0e617b8964b98b5b65345ac9407f5bbdae9",
			"4ef7221c6803306148393ae7d961621599ad3ace063068b39d3b83bf2f722379"},
		{fullRequest, `{"currency":"EUR","amount":1050,"internalReference":"order-42 \u003c\u0026\u003e","paymentReference":"Order 42",` +
			`"payer":{"reference":"cust-1","firstName":"Anna","lastName":"Müller","organisationName":"Org","email":"anna@example.com",` +
			`"accountIdentifiers":{"iban":"DE89370400440532013000","swiftBic":"COBADEFFXXX","sortCode":"040004","accountNumber":"12345678"}},` +
			`"device":{"ip":"203.0.113.7","userAgent":"UA","fingerprint":"fp"},"paymentSystem":"OPEN_BANKING_EU",` +
			`"openBankingEU":{"type":"GOODS","institutionId":"ba4c0276-0000-4000-8000-000000000001","statementDescriptor":"SHOP",` +
			`"validityPeriod":3600,"accountIdentifiers":{"iban":"DE89370400440532013000"}},` +
			`"openBankingUK":{"type":"BILL","institutionId":"x"},` +
			`"beneficiary":{"name":"Test Shop GmbH","accountIdentifiers":{"iban":"DE02120300000000202051"}},` +
			`"communication":{"notifications":{"url":"https://shop.example/n"},"return":{"urls":{"unified":{"url":"https://shop.example/u"},` +
			`"success":{"url":"https://shop.example/s"},"failure":{"url":"https://shop.example/f"},"pending":{"url":"https://shop.example/p"},` +
			`"cancel":{"url":"https://shop.example/c"}},"queryString":"order=42"}},` +
			`"checkout":{"hosted":{"countries":{"available":["DE","AT"]}}},"displayInfo":[{"key":"Order","value":"42"}],` +
			`"termsAndConditionsAccepted":true}`,
			"78ee720b05f6b239a5532cb01977854c8f4ca8276d5432d516a2df035ed7d6dc",
			"589ddd5960330d3479589ff353b1839344118ca92a0d160779fb6e983eabef5f"},
		{`{"currency":"","internalReference":"","payer":{},"device":{},"openBankingEU":{"accountIdentifiers":{}},"openBankingUK":{},` +
			`"beneficiary":{},"communication":{"notifications":{},"return":{"urls":{"unified":{}}}},"checkout":{"hosted":{"countries":{"available":[]}}},` +
			`"displayInfo":[],"termsAndConditionsAccepted":false}`,
			`{"currency":"","amount":null,"payer":{},"device":{},"paymentSystem":"","openBankingEU":{"accountIdentifiers":{}},` +
				`"openBankingUK":{},"beneficiary":{},"communication":{"notifications":{},"return":{"urls":{"unified":{}}}},` +
				`"checkout":{"hosted":{"countries":{}}},"termsAndConditionsAccepted":false}`,
			"274c409a3811d2c8ff2fb0288123ddfaaff1f7969afd93c72b694aa637b7998d",
			"81813c0a360ef827a8e54c05e9f3c403e241920be981fbe622e25147eec9b423"},
		{`{"checkout":{"hosted":{}},"communication":{"return":{}},"displayInfo":[{"key":"","value":""}]}`,
			`{"currency":"","amount":null,"paymentSystem":"","communication":{"return":{}},"checkout":{"hosted":{}},"displayInfo":[{"key":"","value":""}]}`,
			"66e6546f87001c228fdf7f5462195bef796f5dea49fcdddbe60b75cd70d01497",
			"3e383c50529af156460b95a4ee8899c0065b8551c62e71b5f441ddacd8c4d50f"},
	} {
		var r CreateRequest // decoded by field name, case aside: every old key is its field's name
		if err := json.Unmarshal([]byte(c.body), &r); err != nil {
			t.Fatal(err)
		}
		if got := string(canonical(r)); got != c.canonical {
			t.Errorf("canonical(%s)\n got %s\nwant %s", c.body, got, c.canonical)
		}
		if got := Fingerprint("POST /payments", ChannelAPI, r); got != c.api {
			t.Errorf("api fingerprint of %s = %s, want %s", c.body, got, c.api)
		}
		if got := Fingerprint("POST /payments", ChannelHosted, r); got != c.hosted {
			t.Errorf("hosted fingerprint of %s = %s, want %s", c.body, got, c.hosted)
		}
	}
}

// Every field of the request counts in the fingerprint: one added to the
// domain types without a member in canonical fails here.
func TestCanonicalHasEveryField(t *testing.T) {
	t.Parallel()
	// fullRequest predates mandateId (its fingerprint is pinned above).
	full := fullRequest[:len(fullRequest)-1] + `,"mandateId":"0192f0c1-7a2b-7c3d-8e4f-5a6b7c8d9e0f"}`
	var want CreateRequest
	if err := json.Unmarshal([]byte(full), &want); err != nil {
		t.Fatal(err)
	}
	base := string(canonical(want))
	type field struct {
		in reflect.Type
		i  int
	}
	seen := map[field]bool{} // fields given somewhere in fullRequest
	var walk func(v reflect.Value, path []int)
	walk = func(v reflect.Value, path []int) {
		for i := range v.NumField() {
			f, p := v.Field(i), append(append([]int{}, path...), i)
			if _, ok := seen[field{v.Type(), i}]; !ok {
				seen[field{v.Type(), i}] = false
			}
			if f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.Struct {
				seen[field{v.Type(), i}] = true
				walk(f.Elem(), p)
				continue
			}
			if f.IsZero() {
				continue // shares its type with a place where it is given (checked below)
			}
			seen[field{v.Type(), i}] = true
			var r CreateRequest
			if err := json.Unmarshal([]byte(full), &r); err != nil {
				t.Fatal(err)
			}
			leaf := reflect.ValueOf(&r).Elem()
			for _, j := range p[:len(p)-1] {
				leaf = leaf.Field(j).Elem()
			}
			leaf = leaf.Field(p[len(p)-1])
			leaf.SetZero()
			if string(canonical(r)) == base {
				t.Errorf("field %s (%v) is not in the canonical encoding", v.Type().Field(i).Name, p)
			}
		}
	}
	walk(reflect.ValueOf(want), nil)
	for f, given := range seen {
		if !given {
			t.Errorf("%s.%s is given nowhere in full", f.in.Name(), f.in.Field(f.i).Name)
		}
	}
}

// appendString writes every string as encoding/json does.
func TestAppendStringIsEncodingJSONs(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain", "Müller", "a\"b", `back\slash`, "<&>", "tab\tnew\nline", "\x00\x1f\x7f",
		"\u2028\u2029", "\xff\xfeinvalid", "emoji 🙂", "~ !#$%'()*+,-./:;=?@[]^_`{|}"} {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("plain")
	f.Add("<\u2028\xff>")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
		}
	})
}

// BenchmarkFingerprint measures the fingerprint of a request with every
// field given (the cost an Idempotency-Key adds before any SQL).
func BenchmarkFingerprint(b *testing.B) {
	var r CreateRequest
	if err := json.Unmarshal([]byte(fullRequest), &r); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		Fingerprint("POST /payments", ChannelHosted, r)
	}
}
