package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/channel"
	"github.com/bankrail/bankrail/internal/event"
	"github.com/bankrail/bankrail/notification"
)

// channelRecord is a channel as the API answers it.
type channelRecord struct {
	ID, Token, Network, Currency, Address, Status string
	EndUser                                       struct{ Reference string }
}

// channelPaymentRecord is a channel payment as the API answers it.
type channelPaymentRecord struct {
	ID          string `json:"id"`
	ChannelID   string `json:"channelId"`
	Status      string `json:"status"`
	Transaction struct {
		Hash        string     `json:"hash"`
		DetectedAt  time.Time  `json:"detectedAt"`
		ConfirmedAt *time.Time `json:"confirmedAt"`
	} `json:"transaction"`
	Paid     struct{ Amount, Currency string } `json:"paid"`
	Credited *struct {
		Amount   int64  `json:"amount"`
		Currency string `json:"currency"`
	} `json:"credited"`
	Rate *struct{ Value, Pair string } `json:"rate"`
}

func channelBody(token, network, currency string) map[string]any {
	return map[string]any{"token": token, "network": network, "currency": currency, "endUser": map[string]any{"reference": "user-42"}}
}

// mustCreateChannel opens a channel and returns it.
func mustCreateChannel(t *testing.T, env *apptest.Env, token string, body any) channelRecord {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "POST", Path: "/channels", Token: token, Header: v1, Body: body})
	if resp.Status != http.StatusCreated {
		t.Fatalf("create channel: %d %s", resp.Status, resp.Body)
	}
	var c channelRecord
	resp.JSON(t, &c)
	if resp.Header.Get("Location") != "/channels/"+c.ID {
		t.Fatalf("Location %q", resp.Header.Get("Location"))
	}
	return c
}

// mustDeposit plays a sandbox deposit on channel id.
func mustDeposit(t *testing.T, env *apptest.Env, token, id string, body any) channelPaymentRecord {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/channels/" + id + "/deposits", Token: token, Body: body})
	if resp.Status != http.StatusCreated {
		t.Fatalf("deposit on %s: %d %s", id, resp.Status, resp.Body)
	}
	var p channelPaymentRecord
	resp.JSON(t, &p)
	if resp.Header.Get("Location") != "/channel-payments/"+p.ID {
		t.Fatalf("Location %q", resp.Header.Get("Location"))
	}
	return p
}

// getChannelPayment reads a channel payment (200 expected).
func getChannelPayment(t *testing.T, env *apptest.Env, token, id string) channelPaymentRecord {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "GET", Path: "/channel-payments/" + id, Token: token, Header: v1})
	if resp.Status != http.StatusOK {
		t.Fatalf("GET channel payment %s: %d %s", id, resp.Status, resp.Body)
	}
	var p channelPaymentRecord
	resp.JSON(t, &p)
	return p
}

// connectBalance is the available balance of the Merchant's only Connect
// account in currency.
func connectBalance(t *testing.T, env *apptest.Env, token, currency string) int64 {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "GET", Path: "/accounts?currency=" + currency, Token: token, Header: v1})
	var list []struct{ ID string }
	resp.JSON(t, &list)
	if resp.Status != 200 || len(list) != 1 {
		t.Fatalf("accounts in %s: %d %s", currency, resp.Status, resp.Body)
	}
	resp = env.Do(t, apptest.Request{Method: "GET", Path: "/accounts/" + list[0].ID, Token: token, Header: v1})
	var a struct {
		Balance struct{ Available, Pending int64 }
	}
	resp.JSON(t, &a)
	if resp.Status != 200 {
		t.Fatalf("account %s: %d %s", list[0].ID, resp.Status, resp.Body)
	}
	return a.Balance.Available
}

// channelNotice is a channel payment notification as received.
type channelNotice struct {
	Type           string
	ChannelPayment string `json:"channelPayment"`
	Channel        string `json:"channel"`
	Status         string `json:"status"`
	Paid           struct{ Amount, Currency string }
	Credited       *struct {
		Amount   int64
		Currency string
	}
	Timestamp string `json:"timestamp"`
}

func channelNotices(t *testing.T, rc *apptest.Receiver, n int) []channelNotice {
	t.Helper()
	var out []channelNotice
	for _, r := range rc.WaitFor(t, n) {
		var c channelNotice
		if err := json.Unmarshal(r.Body, &c); err != nil {
			t.Fatalf("notification body %s: %v", r.Body, err)
		}
		if err := notification.Verify(apptest.NotificationSecrets[apptest.Merchant.ClientID], r.Header, r.Body); err != nil || c.Timestamp == "" {
			t.Fatalf("notification %v %s: signature %v, or no timestamp", r.Header, r.Body, err)
		}
		c.Type = r.Header.Get("X-Service-Type")
		out = append(out, c)
	}
	return out
}

func TestChannelDepositFromDetectionToCredit(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc := apptest.NewReceiver(t)
		env.SetNotificationURL(t, apptest.Merchant, rc.URL)
		token := env.Token(t, apptest.Merchant)

		c := mustCreateChannel(t, env, token, channelBody("USDC", "ETH", "EUR"))
		if c.Status != "ACTIVE" || c.Token != "USDC" || c.Network != "ETH" || c.Currency != "EUR" ||
			c.EndUser.Reference != "user-42" || !channel.ValidEVM(c.Address) {
			t.Fatalf("new channel %+v", c)
		}
		sol := mustCreateChannel(t, env, token, channelBody("EURC", "SOL", "EUR"))
		if !channel.ValidSOL(sol.Address) || sol.Address == c.Address {
			t.Fatalf("SOL channel address %q", sol.Address)
		}
		// The list: newest first, with the paging headers.
		resp := env.Do(t, apptest.Request{Method: "GET", Path: "/channels?limit=1", Token: token, Header: v1})
		var list []channelRecord
		resp.JSON(t, &list)
		if resp.Status != 200 || len(list) != 1 || list[0].ID != sol.ID || resp.Header.Get("total-items") != "2" ||
			resp.Header.Get("page-count") != "2" {
			t.Fatalf("list %d %v %s", resp.Status, resp.Header, resp.Body)
		}
		for _, q := range []string{"?limit=101", "?page=0", "?customerId=nope"} {
			env.Do(t, apptest.Request{Method: "GET", Path: "/channels" + q, Token: token, Header: v1}).Error(t, 400, "INVALID_QUERY_PARAM")
		}
		resp = env.Do(t, apptest.Request{Method: "GET", Path: "/channels/" + c.ID, Token: token, Header: v1})
		var got channelRecord
		resp.JSON(t, &got)
		if resp.Status != 200 || got != c {
			t.Fatalf("read back %d %+v, want %+v", resp.Status, got, c)
		}

		p := mustDeposit(t, env, token, c.ID, map[string]any{"amount": "125.5"})
		if p.Status != "PROCESSING" || p.ChannelID != c.ID || p.Paid.Amount != "125.500000" || p.Paid.Currency != "USDC" ||
			p.Credited != nil || p.Rate != nil || p.Transaction.ConfirmedAt != nil || !strings.HasPrefix(p.Transaction.Hash, "0x") ||
			len(p.Transaction.Hash) != 66 {
			t.Fatalf("detected deposit %+v", p)
		}
		n := channelNotices(t, rc, 1)[0]
		if n.Type != "channel_payment_detected" || n.ChannelPayment != p.ID || n.Channel != c.ID || n.Status != "PROCESSING" ||
			n.Paid.Amount != "125.500000" || n.Paid.Currency != "USDC" || n.Credited != nil {
			t.Fatalf("detected notification %+v", n)
		}
		if got := channelEvents(t, env, p.ID); got != "channel_payment_detected PROCESSING" {
			t.Fatalf("event log at detection: %s", got)
		}
		// 59 s on the tenant's clock: still waiting for its confirmations.
		advanceClock(t, env, token, 59)
		if got := getChannelPayment(t, env, token, p.ID); got.Status != "PROCESSING" {
			t.Fatalf("after 59 s: %+v", got)
		}
		rc.Quiet(t, 1)
		// 60 s: the worker confirms and credits it without anyone reading it.
		advanceClock(t, env, token, 1)
		n = channelNotices(t, rc, 2)[1]
		// 125.5 × 0.921834 = 115.690167 EUR: 11569 cents, half-even.
		if n.Type != "channel_payment_completed" || n.Status != "COMPLETED" || n.Credited == nil ||
			n.Credited.Amount != 11569 || n.Credited.Currency != "EUR" {
			t.Fatalf("completed notification %+v", n)
		}
		done := getChannelPayment(t, env, token, p.ID)
		if done.Status != "COMPLETED" || done.Transaction.ConfirmedAt == nil ||
			!done.Transaction.ConfirmedAt.Equal(p.Transaction.DetectedAt.Add(60*time.Second)) ||
			done.Credited == nil || done.Credited.Amount != 11569 || done.Credited.Currency != "EUR" ||
			done.Rate == nil || done.Rate.Value != "0.921834" || done.Rate.Pair != "USDC/EUR" {
			t.Fatalf("confirmed deposit %+v (detected at %s)", done, p.Transaction.DetectedAt)
		}
		if got := channelEvents(t, env, p.ID); got != "channel_payment_detected PROCESSING,channel_payment_completed COMPLETED" {
			t.Fatalf("event log at confirmation: %s", got)
		}
		if b := connectBalance(t, env, token, "EUR"); b != 11569 {
			t.Fatalf("EUR balance %d, want 11569", b)
		}
		// The credit is a TOP_UP transaction of the account.
		resp = env.Do(t, apptest.Request{Method: "GET", Path: "/accounts?currency=EUR", Token: token, Header: v1})
		var accts []struct{ ID string }
		resp.JSON(t, &accts)
		resp = env.Do(t, apptest.Request{Method: "GET", Path: "/accounts/" + accts[0].ID + "/transactions?type=TOP_UP", Token: token, Header: v1})
		var txs []struct {
			Type   string
			Amount json.Number
		}
		resp.JSON(t, &txs)
		if resp.Status != 200 || len(txs) != 1 || txs[0].Type != "TOP_UP" {
			t.Fatalf("TOP_UP transactions: %d %s", resp.Status, resp.Body)
		}
		// Another tenant cannot see it; a malformed id is 400.
		other := env.Token(t, apptest.OtherMerch)
		env.Do(t, apptest.Request{Method: "GET", Path: "/channels/" + c.ID, Token: other, Header: v1}).Error(t, 404, "RESOURCE_NOT_FOUND")
		env.Do(t, apptest.Request{Method: "GET", Path: "/channel-payments/" + p.ID, Token: other, Header: v1}).Error(t, 404, "RESOURCE_NOT_FOUND")
		env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/channels/" + c.ID + "/deposits", Token: other,
			Body: map[string]any{"amount": "1"}}).Error(t, 404, "RESOURCE_NOT_FOUND")
		env.Do(t, apptest.Request{Method: "GET", Path: "/channels/not-a-uuid", Token: token, Header: v1}).Error(t, 400, "MALFORMED_PATH_PARAM")
		env.Do(t, apptest.Request{Method: "GET", Path: "/channels/" + c.ID, Token: token}).Error(t, 400, "MISSING_HTTP_HEADER")
		rc.Quiet(t, 2)
	})
}

func TestChannelDepositAmountsAreExact(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		c := mustCreateChannel(t, env, token, channelBody("USDC", "POLYGON", "USD"))
		tiny := mustDeposit(t, env, token, c.ID, map[string]any{"amount": "0.000001"})
		huge := mustDeposit(t, env, token, c.ID, map[string]any{"amount": "99999999.999999"})
		half := mustDeposit(t, env, token, c.ID, map[string]any{"amount": "0.025"}) // 2.5 cents: half-even is 2
		if tiny.Paid.Amount != "0.000001" || huge.Paid.Amount != "99999999.999999" || half.Paid.Amount != "0.025000" {
			t.Fatalf("paid amounts %s, %s, %s", tiny.Paid.Amount, huge.Paid.Amount, half.Paid.Amount)
		}
		// Another tenant's deposit: its clock does not move with this one's.
		other := env.Token(t, apptest.OtherMerch)
		theirs := mustDeposit(t, env, other, mustCreateChannel(t, env, other, channelBody("USDC", "ETH", "USD")).ID,
			map[string]any{"amount": "1"})
		advanceClock(t, env, token, 60)
		if got := getChannelPayment(t, env, other, theirs.ID); got.Status != "PROCESSING" {
			t.Fatalf("another tenant's deposit after this tenant's advance: %+v", got)
		}
		for _, tc := range []struct {
			id   string
			want int64
		}{{tiny.ID, 0}, {huge.ID, 10_000_000_000}, {half.ID, 2}} { // 9999999999.9999 cents
			got := getChannelPayment(t, env, token, tc.id)
			if got.Status != "COMPLETED" || got.Credited == nil || got.Credited.Amount != tc.want || got.Rate.Value != "1" {
				t.Errorf("deposit %s: %+v, want credited %d", tc.id, got, tc.want)
			}
		}
		if b := connectBalance(t, env, token, "USD"); b != 10_000_000_002 {
			t.Fatalf("USD balance %d, want 10000000002", b)
		}
	})
}

func TestChannelInputIsValidated(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		for _, tc := range []struct {
			name   string
			body   any
			fields []string
		}{
			{"unknown token", channelBody("USDT", "ETH", "EUR"), []string{"INVALID_VALUE token"}},
			{"unknown network", channelBody("USDC", "BTC", "EUR"), []string{"INVALID_VALUE network"}},
			{"unknown currency", channelBody("USDC", "ETH", "JPY"), []string{"INVALID_VALUE currency"}},
			{"nothing", map[string]any{}, []string{"VALUE_REQUIRED token", "VALUE_REQUIRED network", "VALUE_REQUIRED currency", "VALUE_REQUIRED endUser.reference"}},
		} {
			e := env.Do(t, apptest.Request{Method: "POST", Path: "/channels", Token: token, Header: v1, Body: tc.body}).Error(t, 422, "VALIDATION_FAILURE")
			if got := strings.Join(fieldList(e), ","); got != strings.Join(tc.fields, ",") {
				t.Errorf("%s: fields %s, want %v", tc.name, got, tc.fields)
			}
		}
		// READ_ONLY users cannot open channels.
		env.Do(t, apptest.Request{Method: "POST", Path: "/channels", Token: env.Token(t, apptest.Viewer), Header: v1,
			Body: channelBody("USDC", "ETH", "EUR")}).Error(t, 403, "ACCESS_DENIED")
		c := mustCreateChannel(t, env, token, channelBody("USDC", "BASE", "GBP"))
		sol := mustCreateChannel(t, env, token, channelBody("USDC", "SOL", "GBP"))
		evmHash := "0x" + strings.Repeat("ab", 32)
		for _, tc := range []struct {
			name, channel string
			body          any
			field         string
		}{
			{"zero", c.ID, map[string]any{"amount": "0"}, "TOO_LOW amount"},
			{"7 fractional digits", c.ID, map[string]any{"amount": "0.0000001"}, "INVALID_FORMAT amount"},
			{"above the maximum", c.ID, map[string]any{"amount": "100000000"}, "TOO_HIGH amount"},
			{"exponent", c.ID, map[string]any{"amount": "1e3"}, "INVALID_FORMAT amount"},
			{"negative", c.ID, map[string]any{"amount": "-1"}, "INVALID_FORMAT amount"},
			{"missing", c.ID, map[string]any{}, "VALUE_REQUIRED amount"},
			{"a number, not a string", c.ID, map[string]any{"amount": 12.5}, "INVALID_TYPE amount"},
			{"an EVM hash on SOL", sol.ID, map[string]any{"amount": "1", "hash": evmHash}, "INVALID_FORMAT hash"},
			{"a short hash", c.ID, map[string]any{"amount": "1", "hash": "0xabc"}, "INVALID_FORMAT hash"},
		} {
			e := env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/channels/" + tc.channel + "/deposits", Token: token, Body: tc.body}).Error(t, 422, "VALIDATION_FAILURE")
			if got := strings.Join(fieldList(e), ","); got != tc.field {
				t.Errorf("%s: fields %s, want %s", tc.name, got, tc.field)
			}
		}
		if p := mustDeposit(t, env, token, c.ID, map[string]any{"amount": "3", "hash": evmHash}); p.Transaction.Hash != evmHash {
			t.Fatalf("given hash %q kept as %q", evmHash, p.Transaction.Hash)
		}
	})
}

func TestChannelPaymentsPaging(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		c := mustCreateChannel(t, env, token, channelBody("EURC", "ETH", "EUR"))
		var ids []string
		for i := range 101 {
			ids = append(ids, mustDeposit(t, env, token, c.ID, map[string]any{"amount": fmt.Sprintf("%d.5", i+1)}).ID)
		}
		list := func(query string) []channelPaymentRecord {
			t.Helper()
			resp := env.Do(t, apptest.Request{Method: "GET", Path: "/channels/" + c.ID + "/payments" + query, Token: token, Header: v1})
			if resp.Status != 200 {
				t.Fatalf("%s: %d %s", query, resp.Status, resp.Body)
			}
			var out []channelPaymentRecord
			resp.JSON(t, &out)
			return out
		}
		check := func(query string, from, n int) {
			t.Helper()
			got := list(query)
			if len(got) != n {
				t.Fatalf("%s: %d items, want %d", query, len(got), n)
			}
			for i, p := range got { // oldest first
				if p.ID != ids[from+i] {
					t.Fatalf("%s: item %d is %s, want %s", query, i, p.ID, ids[from+i])
				}
			}
		}
		check("", 0, 50) // page 1, limit 50 by default
		check("?limit=1", 0, 1)
		check("?page=2&limit=1", 1, 1)
		check("?limit=100", 0, 100)
		check("?page=2&limit=100", 100, 1)
		check("?page=3&limit=100", 0, 0)   // past the end
		check("?page=100&limit=100", 0, 0) // the last page allowed
		check("?page=3", 100, 1)
		for _, q := range []string{"?limit=0", "?limit=101", "?page=0", "?page=101", "?limit=x", "?page=", "?limit=-1"} {
			env.Do(t, apptest.Request{Method: "GET", Path: "/channels/" + c.ID + "/payments" + q, Token: token, Header: v1}).
				Error(t, 400, "INVALID_QUERY_PARAM")
		}
	})
}

func TestChannelsAreOpenedOnlyInTheSandbox(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.Production)
	token := env.Token(t, apptest.Merchant)
	env.Do(t, apptest.Request{Method: "POST", Path: "/channels", Token: token, Header: v1,
		Body: channelBody("USDC", "ETH", "EUR")}).Error(t, 404, "RESOURCE_NOT_FOUND")
}

// channelEvents is the event log of a channel payment of the shop, oldest
// first, as "type status" joined by commas.
func channelEvents(t *testing.T, env *apptest.Env, id string) string {
	t.Helper()
	evs, err := env.App.Store().Events().List(context.Background(), apptest.ShopID,
		event.Filter{SubjectType: channel.SubjectPayment, SubjectID: id})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		out = append(out, e.Type+" "+e.Status)
	}
	return strings.Join(out, ",")
}
