package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/ledger"
)

// TestListDateFiltersZeroTimeIsABound checks issue 28 item 2 on the lists:
// a createdAt bound of 0001-01-01T00:00:00Z is a date like any other (an
// upper bound that early lists nothing), and only an absent parameter means
// no bound, on every list with a createdAt range.
func TestListDateFiltersZeroTimeIsABound(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		merchant, rc := receiving(t, env)
		mustCreate(t, env, merchant, euBody(), nil)
		mustCreate(t, env, merchant, ukBody(), nil)
		emit(t, env, "00000000-0000-4000-8000-00000000d001", 1)
		emit(t, env, "00000000-0000-4000-8000-00000000d002", 2)
		rc.WaitFor(t, 2)
		eur := openAccount(t, env, apptest.ShopID, "EUR", "main")
		credit(t, env, eur, 100, ledger.TypeManualCredit, apptest.Epoch)
		credit(t, env, eur, 200, ledger.TypeManualCredit, apptest.Epoch.Add(time.Minute))

		const zero, late = "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"
		justBefore := apptest.Epoch.Add(-time.Second).Format(time.RFC3339)
		lists := []struct{ name, path string }{
			{"payments", "/payments"},
			{"notifications", "/notifications"},
			{"transactions", "/accounts/" + eur.ID + "/transactions"},
		}
		for _, l := range lists {
			for _, c := range []struct {
				query string
				want  int
			}{
				{"", 2},
				{"?createdAt[gte]=" + zero, 2},
				{"?createdAt[lte]=" + zero, 0},
				{"?createdAt[gte]=" + zero + "&createdAt[lte]=" + zero, 0},
				{"?createdAt[gte]=" + zero + "&createdAt[lte]=" + justBefore, 0},
				{"?createdAt[gte]=" + zero + "&createdAt[lte]=" + late, 2},
				{"?createdAt[gte]=" + late, 0},
			} {
				t.Run(l.name+c.query, func(t *testing.T) {
					resp := env.Do(t, apptest.Request{Method: "GET", Path: l.path + c.query, Token: merchant, Header: v1})
					var items []json.RawMessage
					resp.JSON(t, &items)
					if resp.Status != http.StatusOK || len(items) != c.want || resp.Header.Get("total-items") != strconv.Itoa(c.want) {
						t.Fatalf("GET %s%s: %d, %d items (total-items %q), want %d: %s",
							l.path, c.query, resp.Status, len(items), resp.Header.Get("total-items"), c.want, resp.Body)
					}
				})
			}
			// A present but empty bound is refused, never read as absent.
			env.Do(t, apptest.Request{Method: "GET", Path: l.path + "?createdAt[lte]=", Token: merchant, Header: v1}).
				Error(t, http.StatusBadRequest, "INVALID_QUERY_PARAM")
		}
	})
}
