package checkout_test

import (
	"database/sql"
	"net/http"
	"net/url"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/xs2a"
)

// A payment at a NextGenPSD2 bank is initiated there before it moves to
// BANK_REDIRECT, and the move, the initiation and its poll job commit
// together: when the initiation cannot be written the payment does not
// move either (it stays NEW_PAYMENT, nothing half done), and the payer's
// retry, with the same X-Request-ID, finds the bank's first payment. A
// second visit asks the bank nothing; the payer's approval cancels the
// poll job, before it ever ran, in the unit of work of the move to
// COMPLETED.
func TestNextGenPSD2InitiationCommitsWithTheMove(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		body := with(apptest.EUPayment(), "openBankingEU", map[string]any{"institutionId": apptest.BankDE})
		p := env.CreatePayment(t, token, "api", body, nil)
		db, _ := env.App.Store().Pools()
		pr := newPayer(t, env)

		refuseInitiations(t, env, db, true)
		if page := pr.get(p.DirectURL()); page.Status < 500 {
			t.Fatalf("an initiation that cannot be written: %d, want a 5xx", page.Status)
		}
		if st := statusOf(t, env, p.ID); st != payment.StatusNew {
			t.Fatalf("the move committed without its initiation: %s", st)
		}
		if n := pollJobs(t, db, p.ID, "available"); n != 0 {
			t.Fatalf("%d poll jobs without an initiation", n)
		}
		refuseInitiations(t, env, db, false)

		pr.get(p.DirectURL()).must(t, http.StatusOK, "Rheinische Volksbank")
		pr.get(p.DirectURL()).must(t, http.StatusOK, "Rheinische Volksbank") // a reload
		if st := statusOf(t, env, p.ID); st != payment.StatusBankRedirect {
			t.Fatalf("after the bank's page: %s", st)
		}
		in, err := env.App.Store().Initiation(t.Context(), p.ID)
		if err != nil || in.ASPSPPaymentID == "" {
			t.Fatalf("initiation %+v %v", in, err)
		}
		if n := pollJobs(t, db, p.ID, "available"); n != 1 {
			t.Fatalf("%d poll jobs waiting, want 1", n)
		}
		posts, bankPayments := 0, map[string]bool{}
		for _, e := range env.XS2AExchanges() {
			if e.Method == http.MethodPost && e.RequestHeader.Get("X-Request-ID") == xs2a.RequestID(p.ID) {
				posts++
				bankPayments[string(e.Body)] = true
			}
		}
		if posts != 2 || len(bankPayments) != 1 { // the refused visit's and the retry's, one payment at the bank
			t.Fatalf("%d initiations sent, %d different answers: want 2 with the same answer", posts, len(bankPayments))
		}

		pr.post(p.DirectURL(), url.Values{"token": {tokenOf(t, p.DirectURL())}, "outcome": {"COMPLETED"}}).must(t, http.StatusSeeOther)
		if st := statusOf(t, env, p.ID); st != payment.StatusCompleted {
			t.Fatalf("after the approval: %s", st)
		}
		if waiting, cancelled := pollJobs(t, db, p.ID, "available"), pollJobs(t, db, p.ID, "cancelled"); waiting != 0 || cancelled != 1 {
			t.Fatalf("poll jobs after the approval: %d waiting, %d cancelled; want 0 and 1", waiting, cancelled)
		}
	}, apptest.ServedAtPublicURL)
}

// refuseInitiations makes every write of an initiation fail (a trigger),
// or stops that.
func refuseInitiations(t *testing.T, env *apptest.Env, db *sql.DB, refuse bool) {
	t.Helper()
	stmts := map[bool][]string{
		true:  {`CREATE TRIGGER xs2a_refuse BEFORE INSERT ON xs2a_initiations BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`},
		false: {`DROP TRIGGER xs2a_refuse`},
	}[refuse]
	if env.DB.Engine == dbtest.Postgres {
		stmts = map[bool][]string{
			true: {`CREATE FUNCTION xs2a_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$`,
				`CREATE TRIGGER xs2a_refuse BEFORE INSERT ON xs2a_initiations FOR EACH ROW EXECUTE FUNCTION xs2a_refuse()`},
			false: {`DROP TRIGGER xs2a_refuse ON xs2a_initiations`, `DROP FUNCTION xs2a_refuse()`},
		}[refuse]
	}
	for _, s := range stmts {
		if _, err := db.ExecContext(t.Context(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// pollJobs counts the poll jobs of payment id in state.
func pollJobs(t *testing.T, db *sql.DB, id, state string) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM jobs WHERE unique_key = $1 AND state = $2`,
		xs2a.PollKey(id), state).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// The PSU-IP-Address of a payment that names no device is the payer's
// address as the instance's trusted proxies report it (the address the
// rest of the instance uses), and the connection's peer when no proxy is
// trusted: an X-Forwarded-For the payer made up is not believed.
func TestPSUIPAddressFromTrustedProxies(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		trust bool
		want  string
	}{
		{"behind a trusted proxy", true, "198.51.100.23"},
		{"no proxy trusted", false, "127.0.0.1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			apptest.Each(t, func(t *testing.T, env *apptest.Env) {
				body := with(apptest.EUPayment(), "openBankingEU", map[string]any{"institutionId": apptest.BankDE})
				delete(body, "device")
				p := env.CreatePayment(t, env.Token(t, apptest.Merchant), "api", body, nil)
				pr := newPayer(t, env)
				req, err := http.NewRequest(http.MethodGet, p.DirectURL(), nil)
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("X-Forwarded-For", "198.51.100.23")
				pr.do(req).must(t, http.StatusOK, "Rheinische Volksbank")
				var sent []string
				for _, e := range env.XS2AExchanges() {
					if e.Method == http.MethodPost && e.RequestHeader.Get("X-Request-ID") == xs2a.RequestID(p.ID) {
						sent = append(sent, e.RequestHeader.Get("PSU-IP-Address"))
					}
				}
				if len(sent) != 1 || sent[0] != tt.want {
					t.Fatalf("PSU-IP-Address %v, want [%s]", sent, tt.want)
				}
			}, apptest.ServedAtPublicURL, func(c *config.Config) {
				if tt.trust {
					c.TrustProxyHeaders, c.TrustedProxyCount = true, 1
				}
			})
		})
	}
}
