package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/inbox"
	"github.com/bankrail/bankrail/internal/sandbox"
)

// tableDump collects every table of an instance: rows as JSON, sorted.
type tableDump struct {
	tables map[string][]string
	cur    string
}

func (d *tableDump) Table(name string, _ []string) error {
	d.cur = name
	d.tables[name] = []string{}
	return nil
}

func (d *tableDump) Row(values []any) error {
	b, err := json.Marshal(values)
	d.tables[d.cur] = append(d.tables[d.cur], string(b))
	return err
}

// dumpDB reads every table of env's database (but the kept ones).
func dumpDB(t *testing.T, env *apptest.Env) map[string][]string {
	t.Helper()
	d := &tableDump{tables: map[string][]string{}}
	if err := env.App.Store().DumpTables(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	for name, rows := range d.tables {
		// The periodic purge job runs whenever it is due, reset or not:
		// the instance at work, not data.
		rows = slices.DeleteFunc(rows, func(r string) bool { return name == "jobs" && strings.Contains(r, `"idempotency.purge"`) })
		slices.Sort(rows)
		d.tables[name] = rows
	}
	return d.tables
}

// atRest waits until the instance has nothing left to do: no notification
// waiting, and two dumps a moment apart equal (jobs, deliveries done). Its
// deadline is for a loaded machine (CI runs every package at once under
// -race, where one dump alone can take seconds); when it passes, the test
// names what was still changing.
func atRest(t *testing.T, env *apptest.Env) map[string][]string {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		pending, _, err := env.App.Store().NotificationStats(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var changing []string
		if pending == 0 {
			a := dumpDB(t, env)
			time.Sleep(150 * time.Millisecond)
			last := dumpDB(t, env)
			if reflect.DeepEqual(a, last) {
				return last
			}
			for name := range last {
				if !slices.Equal(a[name], last[name]) {
					changing = append(changing, name)
				}
			}
		}
		if time.Now().After(deadline) {
			var held []string
			for _, r := range dumpDB(t, env)["notifications"] {
				if strings.Contains(r, `"PENDING"`) {
					held = append(held, r)
				}
			}
			t.Fatalf("the instance is not at rest after 90 s: %d notifications pending; tables changing: %v\npending: %.2000s", pending, changing, strings.Join(held, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sameTables fails the test where got and want differ, table by table.
func sameTables(t *testing.T, what string, got, want map[string][]string) {
	t.Helper()
	for name, rows := range want {
		if g := got[name]; !slices.Equal(g, rows) {
			t.Errorf("%s: table %s has %d rows, want %d\n got %.600s\nwant %.600s", what, name, len(g), len(rows), strings.Join(g, "\n"), strings.Join(rows, "\n"))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: table %s is new", what, name)
		}
	}
}

// makeDataOfEveryKind uses the API as a merchant would: payments with their
// notifications and events, Connect funds, a refund, a mandate, a channel,
// a payout, a report, chaos settings and a rotated secret, a moved clock,
// sign-ins and a failed one. It returns the tables that must now hold rows.
func makeDataOfEveryKind(t *testing.T, env *apptest.Env) []string {
	t.Helper()
	acct := fundedAccount(t, env, "Shop EUR", 50_000)
	token := env.Token(t, apptest.Merchant)
	env.SetNotificationURL(t, apptest.Merchant, env.URL+inbox.Path(apptest.Merchant.ClientID))
	rc := apptest.NewReceiver(t)
	paid := mustCreate(t, env, token, expectedBody(rc, 1050, "Reset 1"), map[string]string{scenarioHeader: "COMPLETED", "Idempotency-Key": "reset-1"})
	connectNotes(t, rc, paid.ID, 1)
	mustRefund(t, env, token, paid.ID, map[string]any{"amount": 300, "externalReference": "RMA-1"}, nil)
	mustCreateMandate(t, env, token, vrpBody())
	mustCreateChannel(t, env, token, channelBody("USDC", "ETH", "EUR"))
	mustPayout(t, env, token, payoutBody(acct.ID, 100, "Jane Doe"), nil)
	awaitReport(t, env, token, requestReport(t, env, token, "/reports/payments", period(nil)))
	sendTest(t, env, token)
	setChaos(t, env, token, map[string]any{"duplicatePercent": 10, "seed": 1})
	// Everything sent so far is delivered before the rotation: one signed
	// with the previous secret and delivered after the clock has passed the
	// overlap would be refused by the inbox and retried a minute later on
	// the tenant's clock, which this test never moves again.
	atRest(t, env)
	env.Do(t, apptest.Request{Method: "POST", Path: "/notification-secret/rotate", Token: token, Header: v1, Body: map[string]any{"overlapSeconds": 60}})
	advanceTenant(t, env, token, 60)
	bad := passwordBody(apptest.Merchant)
	bad["password"] = "wrong"
	env.Do(t, apptest.Request{Method: "POST", Path: "/oauth", Body: bad})
	return []string{"payments", "events", "notifications", "notification_attempts", "notification_endpoints", "notification_chaos",
		"sandbox_inbox", "idempotency_keys", "ledger_transactions", "ledger_postings", "refunds", "mandates", "channels", "payouts",
		"reports", "jobs", "tenant_clocks", "refresh_tokens", "login_throttle", "audit_log"}
}

// A reset brings every table back to the instance's seed state (as the
// dump taken right after its start), every clock back to the wall clock;
// tokens of seed users keep working.
func TestSandboxResetRestoresTheSeedState(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		seedState := dumpDB(t, env)
		operator := env.Token(t, apptest.Operator)
		filled := makeDataOfEveryKind(t, env)
		before := atRest(t, env)
		for _, name := range filled {
			if len(before[name]) <= len(seedState[name]) {
				t.Errorf("table %s got no rows from the data made (%d)", name, len(before[name]))
			}
		}
		resp := env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/reset", Token: operator, Header: v1})
		if resp.Status != http.StatusOK {
			t.Fatalf("reset: %d %s", resp.Status, resp.Body)
		}
		var st struct {
			Scope                       string
			SchemaVersion, Tables, Rows int64
		}
		resp.JSON(t, &st)
		if st.Scope != "INSTANCE" || st.SchemaVersion < 41 || st.Tables == 0 || st.Rows == 0 {
			t.Fatalf("reset answered %+v", st)
		}
		after := dumpDB(t, env)
		sameTables(t, "after reset", after, seedState)
		// A brand-new instance with the same seed has the same tables with
		// as many rows each (its generated ids and hashes differ).
		fresh := dumpDB(t, apptest.NewOn(t, dbtest.Migrated(t, env.DB.Engine)))
		for name, rows := range fresh {
			if len(after[name]) != len(rows) {
				t.Errorf("table %s: %d rows after reset, %d in a fresh instance", name, len(after[name]), len(rows))
			}
		}
		if len(fresh) != len(after) {
			t.Errorf("%d tables after reset, %d in a fresh instance", len(after), len(fresh))
		}
		if off := clockOffset(t, env, env.Token(t, apptest.Merchant)); off != 0 {
			t.Fatalf("clock offset %d after reset", off)
		}
		// The instance works on: a payment with a seed user's new token.
		mustCreate(t, env, env.Token(t, apptest.Merchant), euBody(), nil)
	})
}

// clockOffset reads the offset of the sandbox clock of token's tenant.
func clockOffset(t *testing.T, env *apptest.Env, token string) int64 {
	t.Helper()
	var clock struct {
		OffsetSeconds int64 `json:"offsetSeconds"`
	}
	env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/clock", Token: token}).JSON(t, &clock)
	return clock.OffsetSeconds
}

// snapshot downloads the whole sandbox.
func snapshot(t *testing.T, env *apptest.Env, token string) []byte {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/snapshot", Token: token, Header: v1})
	if resp.Status != http.StatusOK || resp.Header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("snapshot: %d %s", resp.Status, resp.Header)
	}
	return resp.Body
}

// restore posts a snapshot file.
func restore(t *testing.T, env *apptest.Env, token string, file []byte) *apptest.Response {
	t.Helper()
	return env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/restore", Token: token,
		Header: map[string]string{"X-Service-Api-Version": "1", "Content-Type": "application/x-ndjson"}, Body: file})
}

// snapshot -> change -> restore gives the database of the snapshot back,
// table by table; a file of another schema version, or cut short, changes
// nothing.
func TestSandboxSnapshotRestore(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		operator := env.Token(t, apptest.Operator)
		makeDataOfEveryKind(t, env)
		at := atRest(t, env)
		file := snapshot(t, env, operator)

		token := env.Token(t, apptest.Merchant)
		mustCreate(t, env, token, euBody(), nil)
		advanceTenant(t, env, token, 30)
		// What these caused is delivered before chaos holds anything back:
		// reordering holds a notification for a later one or a minute of
		// the tenant's clock, which this test never moves again.
		atRest(t, env)
		setChaos(t, env, token, map[string]any{"reorderPercent": 100})
		changed := atRest(t, env)

		var h sandbox.Header
		first, rest, _ := bytes.Cut(file, []byte("\n"))
		if err := json.Unmarshal(first, &h); err != nil || h.SchemaVersion < 41 || h.Format != sandbox.Format {
			t.Fatalf("header %s: %v", first, err)
		}
		h.SchemaVersion--
		older, _ := json.Marshal(h)
		e := restore(t, env, operator, append(append(older, '\n'), rest...)).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		if len(e.Errors) != 1 || e.Errors[0].PropertyPath != "schemaVersion" || e.Errors[0].Type != "NOT_EQUAL" ||
			!strings.Contains(e.Errors[0].Message, fmt.Sprintf("schema version %d", h.SchemaVersion)) {
			t.Fatalf("older schema: %+v", e)
		}
		restore(t, env, operator, file[:len(file)-40]).Error(t, http.StatusBadRequest, "BAD_REQUEST")
		sameTables(t, "after refused restores", dumpDB(t, env), changed)

		resp := restore(t, env, operator, file)
		if resp.Status != http.StatusOK {
			t.Fatalf("restore: %d %s", resp.Status, resp.Body)
		}
		sameTables(t, "after restore", dumpDB(t, env), at)
		if off := clockOffset(t, env, token); off != 60 {
			t.Fatalf("clock offset %d after restore, want the snapshot's 60", off)
		}
	})
}

// The whole instance's reset, snapshot and restore act on every customer:
// the operator's only (a tenant's ADMIN, whose own default is its tree,
// asks for the instance in vain), and not at all when the instance turns
// them off.
func TestSandboxInstanceControlsNeedTheOperator(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	instance := "?scope=INSTANCE"
	for _, l := range []apptest.Login{apptest.PSPAdmin, apptest.Merchant, apptest.Viewer, apptest.OtherMerch} {
		token := env.Token(t, l)
		e := env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/reset" + instance, Token: token, Header: v1}).Error(t, http.StatusForbidden, "ACCESS_DENIED")
		if l == apptest.PSPAdmin && !strings.Contains(e.Message, "instance:operate") {
			t.Errorf("%s: %s", l.Username, e.Message)
		}
		env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/snapshot" + instance, Token: token, Header: v1}).Error(t, http.StatusForbidden, "ACCESS_DENIED")
		env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/restore" + instance, Token: token,
			Header: map[string]string{"X-Service-Api-Version": "1", "Content-Type": "application/x-ndjson"}, Body: []byte("{}\n")}).
			Error(t, http.StatusForbidden, "ACCESS_DENIED")
	}
	// The operator has no customer tree of its own to act on.
	operator := env.Token(t, apptest.Operator)
	env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/reset?scope=TREE", Token: operator, Header: v1}).Error(t, http.StatusForbidden, "ACCESS_DENIED")
	env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/reset?scope=ALL", Token: operator, Header: v1}).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
	off := apptest.New(t, func(c *config.Config) { c.SandboxInstanceControls = false })
	operator = off.Token(t, apptest.Operator)
	off.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/reset", Token: operator, Header: v1}).Error(t, http.StatusForbidden, "ACCESS_DENIED")
	off.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/snapshot", Token: operator, Header: v1}).Error(t, http.StatusForbidden, "ACCESS_DENIED")
	prod := apptest.New(t, apptest.Production)
	prod.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/reset", Token: prod.Token(t, apptest.Operator), Header: v1}).
		Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
}
