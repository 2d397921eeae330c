package dashboard

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/bankrail/bankrail/internal/notify"
)

// chaosField is a number of the webhook chaos form.
type chaosField struct {
	Name, Label, Hint, Value string
	Max                      int64
}

// chaosForm is the webhook chaos form of one application on the sandbox
// page, as stored or as sent.
type chaosForm struct {
	ApplicationID, ClientID string
	Active                  bool
	Fields                  []chaosField
}

// chaosFields are the form's numbers, named as the API's fields
// (PUT /sandbox/notification-chaos).
var chaosFields = []struct {
	name, label, hint string
	max               int64
}{
	{"duplicatePercent", "Duplicate (%)", "delivered twice", 100},
	{"delayPercent", "Delay (%)", "first attempt held back", 100},
	{"delaySeconds", "Delay (seconds)", "how long, on the sandbox clock", int64(notify.MaxChaosDelay.Seconds())},
	{"reorderPercent", "Reorder (%)", "overtaken by a later one", 100},
	{"completedAfterReceivedPercent", "COMPLETED after payment_received (%)", "held until payment_received is delivered", 100},
	{"seed", "Seed", "the same seed repeats the same choices", 1 << 53},
}

// chaosValues are c's numbers in chaosFields' order.
func chaosValues(c notify.Chaos) []int64 {
	return []int64{int64(c.DuplicatePercent), int64(c.DelayPercent), c.DelaySeconds, int64(c.ReorderPercent),
		int64(c.CompletedAfterReceivedPercent), c.Seed}
}

// chaosFormOf is the form of an application with values (as typed).
func chaosFormOf(appID, clientID string, active bool, values []string) chaosForm {
	f := chaosForm{ApplicationID: appID, ClientID: clientID, Active: active}
	for i, cf := range chaosFields {
		f.Fields = append(f.Fields, chaosField{Name: cf.name, Label: cf.label, Hint: cf.hint, Value: values[i], Max: cf.max})
	}
	return f
}

// chaosForms are the forms of the viewer's customer's applications; sent,
// when not nil, replaces the form of its application (a refused change).
func (h *sandboxPages) chaosForms(q *req, sent *chaosForm) ([]chaosForm, error) {
	if h.Settings == nil || h.Identity == nil {
		return nil, nil
	}
	apps, err := h.Identity.OwnApplications(q.ctx(), q.viewer())
	if err != nil {
		return nil, err
	}
	var out []chaosForm
	for _, a := range apps {
		if sent != nil && sent.ApplicationID == a.ID {
			out = append(out, *sent)
			continue
		}
		c, _, err := h.Settings.Chaos(q.ctx(), a.ClientID)
		if err != nil {
			return nil, err
		}
		var values []string
		for _, v := range chaosValues(c) {
			values = append(values, strconv.FormatInt(v, 10))
		}
		out = append(out, chaosFormOf(a.ID, a.ClientID, c.Active(), values))
	}
	return out, nil
}

// setChaos is POST /dashboard/applications/{id}/chaos (sandbox): the
// application's webhook chaos, as PUT /sandbox/notification-chaos (an
// empty field is 0).
func (h *sandboxPages) setChaos(w http.ResponseWriter, q *req) error {
	a, err := visibleApplication(h.base, q, q.PathValue("id"))
	if err != nil {
		return err
	}
	var values []string
	var n []int64
	var bad []string
	for _, cf := range chaosFields {
		s := strings.TrimSpace(q.PostForm.Get(cf.name))
		values = append(values, s)
		v := int64(0)
		if s != "" {
			if v, err = strconv.ParseInt(s, 10, 64); err != nil || v < 0 || v > cf.max {
				bad = append(bad, cf.label+" must be a whole number from 0 to "+strconv.FormatInt(cf.max, 10)+".")
			}
		}
		n = append(n, v)
	}
	sent := chaosFormOf(a.ID, a.ClientID, false, values)
	if len(bad) > 0 {
		return h.sandboxPage(w, q, http.StatusUnprocessableEntity, "", &problemView{Message: "Check the chaos settings of " + a.ClientID + ".",
			Fields: bad}, "", "hours", &sent)
	}
	c := notify.Chaos{DuplicatePercent: int(n[0]), DelayPercent: int(n[1]), DelaySeconds: n[2], ReorderPercent: int(n[3]),
		CompletedAfterReceivedPercent: int(n[4]), Seed: n[5]}
	if _, _, err := h.Settings.SetChaos(q.ctx(), a.ClientID, c); err != nil {
		problem, perr := problemOf(err)
		if perr != nil {
			return perr
		}
		return h.sandboxPage(w, q, statusOf(err), "", problem, "", "hours", &sent)
	}
	return done(w, q, Prefix+"clock", "chaos")
}
