package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/inbox"
	"github.com/bankrail/bankrail/internal/sandbox"
)

// treeDump reads the rows of the tree of root, as a tree's snapshot holds
// them.
func treeDump(t *testing.T, env *apptest.Env, root string) map[string][]string {
	t.Helper()
	d := &tableDump{tables: map[string][]string{}}
	if err := env.App.Store().DumpTree(t.Context(), root, d); err != nil {
		t.Fatal(err)
	}
	return d.tables
}

// identityTables are the tables of who may sign in and with what, which a
// tree's reset or restore never writes.
var identityTables = []string{"customers", "customer_tree", "users", "applications", "notification_endpoints"}

// only keeps the tables of d named.
func only(d map[string][]string, names []string) map[string][]string {
	out := map[string][]string{}
	for _, n := range names {
		out[n] = d[n]
	}
	return out
}

// treeData makes, for login's customer, a payment the payer completed and
// a notification delivered to its sandbox inbox; it returns the payment's
// id.
func treeData(t *testing.T, env *apptest.Env, l apptest.Login) string {
	t.Helper()
	token := env.Token(t, l)
	env.SetNotificationURL(t, l, env.URL+inbox.Path(l.ClientID))
	body := euBody()
	delete(body["communication"].(map[string]any), "notifications") // to the application's URL: the inbox
	id := mustCreate(t, env, token, body, nil).ID
	mustAuthorise(t, env, token, id, "COMPLETED")
	sendTest(t, env, token)
	return id
}

// statusOfPayment is the status GET /payments/{id} answers login.
func statusOfPayment(t *testing.T, env *apptest.Env, l apptest.Login, id string) int {
	t.Helper()
	return env.Do(t, apptest.Request{Method: "GET", Path: "/payments/" + id, Token: env.Token(t, l), Header: v1}).Status
}

// The sandbox controls in the tenancy matrix: a tenant's ADMIN snapshots,
// resets and restores its own customer tree (its customer and the one
// below it), and another tenant's data is untouched by either; the file
// holds neither another customer's rows nor any credential; MERCHANT and
// READ_ONLY users cannot; a tenant's ADMIN on the whole instance gets 403.
func TestSandboxTreeTenancy(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		mine := treeData(t, env, apptest.Merchant)
		theirs := treeData(t, env, apptest.OtherMerch)
		atRest(t, env)
		admin := env.Token(t, apptest.PSPAdmin)
		for _, l := range []apptest.Login{apptest.Viewer, apptest.Merchant, apptest.OtherMerch} {
			token := env.Token(t, l)
			env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/reset", Token: token, Header: v1}).Error(t, http.StatusForbidden, "ACCESS_DENIED")
			env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/snapshot", Token: token, Header: v1}).Error(t, http.StatusForbidden, "ACCESS_DENIED")
			restore(t, env, token, []byte("{}\n")).Error(t, http.StatusForbidden, "ACCESS_DENIED")
		}
		env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/reset?scope=INSTANCE", Token: admin, Header: v1}).Error(t, http.StatusForbidden, "ACCESS_DENIED")
		env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/snapshot?scope=INSTANCE", Token: admin, Header: v1}).Error(t, http.StatusForbidden, "ACCESS_DENIED")

		otherBefore := treeDump(t, env, apptest.OtherShopID)
		identityBefore := only(dumpDB(t, env), identityTables)
		file := snapshot(t, env, admin)
		var h sandbox.Header
		first, _, _ := bytes.Cut(file, []byte("\n"))
		if err := json.Unmarshal(first, &h); err != nil || h.Scope != sandbox.ScopeTree || h.CustomerID != apptest.PSPID {
			t.Fatalf("header %s: %v", first, err)
		}
		for _, leak := range []string{apptest.OtherShopID, theirs, "$argon2", "shop-notification-secret", "psp-notification-secret",
			`"table":"users"`, `"table":"applications"`, `"table":"refresh_tokens"`, `"table":"audit_log"`, `"table":"jobs"`} {
			if bytes.Contains(file, []byte(leak)) {
				t.Errorf("the tree's snapshot holds %s", leak)
			}
		}
		if !bytes.Contains(file, []byte(mine)) {
			t.Fatalf("the tree's snapshot lacks its payment %s", mine)
		}

		resp := env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/reset", Token: admin, Header: v1})
		var st struct {
			Scope string
			Rows  int64
		}
		if resp.JSON(t, &st); resp.Status != http.StatusOK || st.Scope != "TREE" {
			t.Fatalf("tree reset: %d %s", resp.Status, resp.Body)
		}
		if got := statusOfPayment(t, env, apptest.Merchant, mine); got != http.StatusNotFound {
			t.Fatalf("the tree's payment after its reset: %d", got)
		}
		if got := statusOfPayment(t, env, apptest.OtherMerch, theirs); got != http.StatusOK {
			t.Fatalf("another tenant's payment after a tree reset: %d", got)
		}
		sameTables(t, "another tree after a tree reset", treeDump(t, env, apptest.OtherShopID), otherBefore)
		sameTables(t, "who may sign in after a tree reset", only(dumpDB(t, env), identityTables), identityBefore)

		if resp := restore(t, env, admin, file); resp.Status != http.StatusOK {
			t.Fatalf("tree restore: %d %s", resp.Status, resp.Body)
		}
		if got := statusOfPayment(t, env, apptest.Merchant, mine); got != http.StatusOK {
			t.Fatalf("the tree's payment after its restore: %d", got)
		}
		sameTables(t, "another tree after a tree restore", treeDump(t, env, apptest.OtherShopID), otherBefore)
		sameTables(t, "who may sign in after a tree restore", only(dumpDB(t, env), identityTables), identityBefore)
		// The merchant's token, made before both, still works.
		mustCreate(t, env, env.Token(t, apptest.Merchant), euBody(), nil)
	})
}

// doctor edits a snapshot file: edit changes the rows of table (its
// columns given), extra tables are added before the end line, and the end
// line counts what the file then holds.
func doctor(t *testing.T, file []byte, table string, edit func(columns []string, row []any) []any, extra ...string) []byte {
	t.Helper()
	lines := strings.Split(strings.TrimRight(string(file), "\n"), "\n")
	var out []string
	var cur string
	var columns []string
	tables, rows := 0, 0
	for _, line := range lines[:len(lines)-1] {
		switch {
		case strings.HasPrefix(line, "["):
			rows++
			if cur == table && edit != nil {
				var row []any
				if err := json.Unmarshal([]byte(line), &row); err != nil {
					t.Fatal(err)
				}
				b, _ := json.Marshal(edit(columns, row))
				line = string(b)
			}
		case strings.Contains(line, `"table"`):
			var tl struct {
				Table   string
				Columns []string
			}
			if err := json.Unmarshal([]byte(line), &tl); err != nil {
				t.Fatal(err)
			}
			cur, columns = tl.Table, tl.Columns
			tables++
		}
		out = append(out, line)
	}
	for _, line := range extra {
		if strings.HasPrefix(line, "[") {
			rows++
		} else {
			tables++
		}
		out = append(out, line)
	}
	out = append(out, fmt.Sprintf(`{"end":true,"tables":%d,"rows":%d}`, tables, rows))
	return []byte(strings.Join(out, "\n") + "\n")
}

// set returns an edit that sets column to v in every row.
func set(column string, v any) func([]string, []any) []any {
	return func(columns []string, row []any) []any {
		if i := slices.Index(columns, column); i >= 0 {
			row[i] = v
		}
		return row
	}
}

// A tree's restore writes nothing outside the tree: a file whose rows
// belong to another customer, name another tree's rows, take another
// tree's ids, carry users (and their password hashes), or are of another
// customer or of the whole instance is VALIDATION_FAILURE and changes
// nothing; the operator's instance restore refuses a tree's file.
func TestSandboxTreeRestoreStaysInTheTree(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		treeData(t, env, apptest.Merchant)
		theirs := treeData(t, env, apptest.OtherMerch)
		atRest(t, env)
		admin, operator := env.Token(t, apptest.PSPAdmin), env.Token(t, apptest.Operator)
		file := snapshot(t, env, admin)
		other, err := env.App.Store().GetApplicationByClientID(t.Context(), apptest.OtherMerch.ClientID)
		if err != nil {
			t.Fatal(err)
		}
		user := `[` + strings.Join([]string{`"u-1"`, `"` + apptest.ShopID + `"`, `"intruder@shop.test"`, `"$argon2id$v=19$m=1024,t=1,p=1$c2FsdA$aGFzaA"`, `"ADMIN"`, `0`}, ",") + `]`
		cases := []struct {
			name, property string
			file           []byte
		}{
			{"a payment of another customer", "tables", doctor(t, file, "payments", set("customer_id", apptest.OtherShopID))},
			{"another tree's payment id", "tables", doctor(t, file, "payments", set("id", theirs))},
			{"a notification to another's application", "tables", doctor(t, file, "notifications", set("application_id", other.ID))},
			{"a payment of another's application", "tables", doctor(t, file, "payments", set("client_id", apptest.OtherMerch.ClientID))},
			{"an event of another's payment", "tables", doctor(t, file, "events", set("subject_id", theirs))},
			{"a payment without a status", "tables", doctor(t, file, "payments", set("status", nil))},
			{"a user and its password hash", "tables", doctor(t, file, "", nil,
				`{"table":"users","columns":["id","customer_id","username","password_hash","role","created_at"]}`, user)},
			{"another customer's file", "scope", bytes.Replace(file, []byte(`"customerId":"`+apptest.PSPID), []byte(`"customerId":"`+apptest.OtherShopID), 1)},
			{"the instance's file", "scope", snapshot(t, env, operator)},
		}
		before := dumpDB(t, env)
		delete(before, "audit_log")
		for _, c := range cases {
			e := restore(t, env, admin, c.file).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
			if len(e.Errors) != 1 || e.Errors[0].PropertyPath != c.property {
				t.Errorf("%s: %+v", c.name, e)
			}
		}
		after := dumpDB(t, env)
		delete(after, "audit_log")
		sameTables(t, "after refused tree restores", after, before)
		e := restore(t, env, operator, file).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		if len(e.Errors) != 1 || e.Errors[0].PropertyPath != "scope" {
			t.Errorf("the instance restores a tree's file: %+v", e)
		}
	})
}

// A tree's snapshot of data of every kind (payments and their
// notifications and events, Connect funds and postings, a refund, a
// mandate, a channel, a payout, a report and its chunks, chaos settings,
// the inbox) restores as it was after a tree reset: the checks that keep a
// restore in its tree refuse nothing of the tree's own.
func TestSandboxTreeSnapshotRestoresEveryKind(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		makeDataOfEveryKind(t, env)
		atRest(t, env)
		admin := env.Token(t, apptest.PSPAdmin)
		before := treeDump(t, env, apptest.PSPID)
		for _, name := range []string{"payments", "events", "notifications", "notification_attempts", "ledger_postings", "refunds",
			"mandates", "channels", "payouts", "reports", "report_chunks", "notification_chaos", "sandbox_inbox"} {
			if len(before[name]) == 0 {
				t.Errorf("the tree has no rows of %s to snapshot", name)
			}
		}
		file := snapshot(t, env, admin)
		if resp := env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/reset", Token: admin, Header: v1}); resp.Status != http.StatusOK {
			t.Fatalf("tree reset: %d %s", resp.Status, resp.Body)
		}
		if got := treeDump(t, env, apptest.PSPID); len(got["payments"]) != 0 {
			t.Fatalf("%d payments after the tree's reset", len(got["payments"]))
		}
		if resp := restore(t, env, admin, file); resp.Status != http.StatusOK {
			t.Fatalf("tree restore: %d %s", resp.Status, resp.Body)
		}
		sameTables(t, "after the tree's restore", treeDump(t, env, apptest.PSPID), before)
	})
}
