package payment

import (
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/errs"
)

func TestLinkTokens(t *testing.T) {
	t.Parallel()
	p := testPayment(bank.OpenBankingEU, "")
	p.CheckoutToken = "K7QX3M9RTAK7QX3M9RTAK7QX3M9RTA22"
	other := p
	other.ID = "0b7d1f58-2c1e-4a0e-9d51-6c3f7a2b9e04"
	exp := lifecycleEpoch.Add(LinkTTL)
	checkout := LinkToken(p, Link{Purpose: LinkCheckout, Expires: exp})
	embedded := LinkToken(p, Link{Purpose: LinkEmbedded, Expires: exp, Origin: "https://shop.example"})

	for _, tc := range []struct {
		name    string
		p       Payment
		token   string
		now     time.Time
		want    Link
		wantErr string // part of the message; empty: valid
	}{
		{"checkout link", p, checkout, lifecycleEpoch, Link{Purpose: LinkCheckout, Expires: exp}, ""},
		{"embedded link keeps its origin", p, embedded, lifecycleEpoch, Link{Purpose: LinkEmbedded, Expires: exp, Origin: "https://shop.example"}, ""},
		{"one second before expiry", p, checkout, exp.Add(-time.Second), Link{Purpose: LinkCheckout, Expires: exp}, ""},
		{"at expiry", p, checkout, exp, Link{}, "expired"},
		{"another payment", other, checkout, lifecycleEpoch, Link{}, "not valid"},
		{"another checkout token", func() Payment { q := p; q.CheckoutToken += "X"; return q }(), checkout, lifecycleEpoch, Link{}, "not valid"},
		{"forged origin", p, forge(embedded, "embedded|"+itoa(exp)+"|https://evil.example"), lifecycleEpoch, Link{}, "not valid"},
		{"forged expiry", p, forge(checkout, "checkout|"+itoa(exp.Add(time.Hour))+"|"), exp, Link{}, "not valid"},
		{"garbage", p, "not-a-token", lifecycleEpoch, Link{}, "not valid"},
		{"empty mac", p, strings.Split(checkout, ".")[0] + ".", lifecycleEpoch, Link{}, "not valid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := checkLink(tc.p, tc.token, tc.now)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.wantErr != "" && (!errs.Is(err, errs.NotFound) || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("got %v, want RESOURCE_NOT_FOUND %q", err, tc.wantErr)
			case got != tc.want:
				t.Fatalf("link %+v, want %+v", got, tc.want)
			}
		})
	}
}

// forge replaces the payload of token, keeping its MAC.
func forge(token, payload string) string {
	_, mac, _ := strings.Cut(token, ".")
	return b64(payload) + "." + mac
}

func TestCanonicalOrigin(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://Shop.Example":          "https://shop.example",
		"http://127.0.0.1:8081":         "http://127.0.0.1:8081",
		"https://shop.example/":         "https://shop.example",
		"https://shop.example/pay":      "",
		"https://shop.example?x=1":      "",
		"ftp://shop.example":            "",
		"https://user@shop.example":     "",
		"shop.example":                  "",
		"":                              "",
		"https://shop.example|checkout": "",
	} {
		got, ok := CanonicalOrigin(in)
		if got != want || ok != (want != "") {
			t.Errorf("CanonicalOrigin(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

func itoa(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
