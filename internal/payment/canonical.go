package payment

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// canonical is the request's encoding for its idempotency fingerprint,
// written member by member so that it depends on neither JSON tags nor Go
// field names: the JSON object the request was encoded as while the domain
// types carried tags (the same names, order and omissions), so that keys
// stored before and after the tags went fingerprint alike.
func canonical(r CreateRequest) []byte {
	o := object{}.put("currency", r.Currency).put("amount", r.Amount).
		str("internalReference", r.InternalReference).str("paymentReference", r.PaymentReference)
	if p := r.Payer; p != nil {
		o = o.put("payer", object{}.str("reference", p.Reference).str("firstName", p.FirstName).
			str("lastName", p.LastName).str("organisationName", p.OrganisationName).str("email", p.Email).
			obj("accountIdentifiers", identifiersObject(p.AccountIdentifiers)))
	}
	if d := r.Device; d != nil {
		o = o.put("device", object{}.str("ip", d.IP).str("userAgent", d.UserAgent).str("fingerprint", d.Fingerprint))
	}
	o = o.put("paymentSystem", string(r.PaymentSystem))
	if eu := r.OpenBankingEU; eu != nil {
		eo := object{}.str("type", string(eu.Type)).str("institutionId", eu.InstitutionID).
			str("statementDescriptor", eu.StatementDescriptor)
		if eu.ValidityPeriod != nil {
			eo = eo.put("validityPeriod", *eu.ValidityPeriod)
		}
		o = o.put("openBankingEU", eo.obj("accountIdentifiers", identifiersObject(eu.AccountIdentifiers)))
	}
	if uk := r.OpenBankingUK; uk != nil {
		o = o.put("openBankingUK", object{}.str("type", string(uk.Type)).str("institutionId", uk.InstitutionID))
	}
	if b := r.Beneficiary; b != nil {
		o = o.put("beneficiary", object{}.str("name", b.Name).obj("accountIdentifiers", identifiersObject(b.AccountIdentifiers)))
	}
	o = o.obj("communication", communicationObject(r.Communication)).obj("checkout", checkoutObject(r.Checkout))
	if len(r.DisplayInfo) > 0 {
		lines := make([]object, 0, len(r.DisplayInfo))
		for _, d := range r.DisplayInfo {
			lines = append(lines, object{}.put("key", d.Key).put("value", d.Value))
		}
		o = o.put("displayInfo", lines)
	}
	if r.TermsAndConditionsAccepted != nil {
		o = o.put("termsAndConditionsAccepted", *r.TermsAndConditionsAccepted)
	}
	// mandateId last, and only when given: requests without one fingerprint as before.
	o = o.str("mandateId", r.MandateID)
	return o.appendTo(make([]byte, 0, 512))
}

// identifiersObject encodes account identifiers (nil stays nil).
func identifiersObject(a *AccountIdentifiers) object {
	if a == nil {
		return nil
	}
	return object{}.str("iban", a.IBAN).str("swiftBic", a.SwiftBic).str("sortCode", a.SortCode).
		str("accountNumber", a.AccountNumber)
}

// communicationObject encodes the communication object (nil stays nil).
func communicationObject(c *Communication) object {
	if c == nil {
		return nil
	}
	o := object{}
	if n := c.Notifications; n != nil {
		o = o.put("notifications", object{}.str("url", n.URL))
	}
	if ret := c.Return; ret != nil {
		ro := object{}
		if u := ret.URLs; u != nil {
			ro = ro.put("urls", object{}.obj("unified", urlObject(u.Unified)).obj("success", urlObject(u.Success)).
				obj("failure", urlObject(u.Failure)).obj("pending", urlObject(u.Pending)).obj("cancel", urlObject(u.Cancel)))
		}
		o = o.put("return", ro.str("queryString", ret.QueryString))
	}
	return o
}

// urlObject encodes one {url} object (nil stays nil).
func urlObject(u *URL) object {
	if u == nil {
		return nil
	}
	return object{}.str("url", u.URL)
}

// checkoutObject encodes the checkout object (nil stays nil).
func checkoutObject(c *Checkout) object {
	if c == nil {
		return nil
	}
	o := object{}
	if h := c.Hosted; h != nil {
		ho := object{}
		if cs := h.Countries; cs != nil {
			co := object{}
			if len(cs.Available) > 0 {
				co = co.put("available", cs.Available)
			}
			ho = ho.put("countries", co)
		}
		o = o.put("hosted", ho)
	}
	return o
}

// object is a JSON object whose members keep the order they were put in.
type object []member

// member is one name and value of an object.
type member struct {
	name  string
	value any
}

// put adds a member.
func (o object) put(name string, value any) object { return append(o, member{name, value}) }

// str adds a string member unless it is empty.
func (o object) str(name, s string) object {
	if s == "" {
		return o
	}
	return o.put(name, s)
}

// obj adds an object member unless it is nil (an absent object).
func (o object) obj(name string, v object) object {
	if v == nil {
		return o
	}
	return o.put(name, v)
}

// appendTo appends the object's JSON, its members in order, exactly as
// encoding/json writes each value (which the stored fingerprints were made
// with), without its reflection and without re-reading nested objects.
func (o object) appendTo(b []byte) []byte {
	b = append(b, '{')
	for i, m := range o {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, m.name)
		b = append(b, ':')
		b = appendValue(b, m.value)
	}
	return append(b, '}')
}

// appendValue appends v as encoding/json encodes it.
func appendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case string:
		return appendString(b, v)
	case *int64:
		if v == nil {
			return append(b, "null"...)
		}
		return strconv.AppendInt(b, *v, 10)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case bool:
		return strconv.AppendBool(b, v)
	case object:
		if v == nil {
			return append(b, "null"...)
		}
		return v.appendTo(b)
	case []object:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.appendTo(b)
		}
		return append(b, ']')
	case []string:
		if v == nil {
			return append(b, "null"...)
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, e)
		}
		return append(b, ']')
	}
	j, err := json.Marshal(v)
	if err != nil { // only the types above are put: cannot happen
		panic(fmt.Sprintf("payment: canonical encoding of %T: %v", v, err))
	}
	return append(b, j...)
}

// appendString appends s as a JSON string as encoding/json writes it: as
// it is between quotes when it is printable ASCII with nothing to escape
// (nearly always), else through encoding/json (HTML characters, controls,
// invalid UTF-8 and U+2028/U+2029 are escaped the way it escapes them).
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			j, _ := json.Marshal(s) // a string: cannot fail
			return append(b, j...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
