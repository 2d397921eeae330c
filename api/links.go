package api

import (
	"net/http"
	"strings"
)

// LinkTarget is the target of the link with relation rel in h's Link headers
// (RFC 8288: `<target>; rel="name"`, several separated by commas), or ""
// when there is none: `rel="approval"` names the page where the payer
// answers an amendment (sandbox), `rel="next"` a list's next page. Targets
// that hold a comma are not expected.
func LinkTarget(h http.Header, rel string) string {
	want := `rel="` + rel + `"`
	for _, v := range h.Values("Link") {
		for _, link := range strings.Split(v, ",") {
			target, params, _ := strings.Cut(strings.TrimSpace(link), ";")
			for _, p := range strings.Split(params, ";") {
				if strings.TrimSpace(p) == want {
					return strings.Trim(strings.TrimSpace(target), "<>")
				}
			}
		}
	}
	return ""
}
