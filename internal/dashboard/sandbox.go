package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
)

// clockData fills the sandbox page: the clock, the webhook chaos of the
// viewer's applications, the reset.
type clockData struct {
	Now     time.Time
	Offset  string
	Tenant  string
	Advance []option // the quick advances
	Amount  string   // the custom advance as typed
	Unit    string
	Units   []option
	Chaos   []chaosForm
	Reset   bool // the instance can be reset (the role decides whether the button shows)
}

// quickAdvances are the clock page's one-click advances.
var quickAdvances = []struct {
	label string
	d     time.Duration
}{{"1 hour", time.Hour}, {"1 day", 24 * time.Hour}, {"7 days", 7 * 24 * time.Hour}, {"30 days", 30 * 24 * time.Hour}}

// clockUnits are the units of the custom advance.
var clockUnits = []struct {
	name string
	d    time.Duration
}{{"minutes", time.Minute}, {"hours", time.Hour}, {"days", 24 * time.Hour}}

// clock is GET /dashboard/clock (sandbox): the sandbox console. The clock
// of the viewer's tenant (the top-level customer: a PSP and its merchants
// share it), the webhook chaos of its applications, the instance's reset.
func (h *sandboxPages) clock(w http.ResponseWriter, q *req) error {
	return h.sandboxPage(w, q, http.StatusOK, notice(q), nil, "", "hours", nil)
}

// sandboxPage writes the sandbox page; after a refused chaos change, with
// the form as it was sent.
func (h *sandboxPages) sandboxPage(w http.ResponseWriter, q *req, status int, note string, problem *problemView, amount, unit string,
	sent *chaosForm) error {
	c, err := h.Sandbox.Read(q.ctx(), q.viewer())
	if err != nil {
		return err
	}
	tenant := h.namer(q)(c.TenantID)
	d := clockData{Now: c.Now, Offset: describeOffset(c.Offset), Tenant: tenant, Amount: amount, Unit: unit, Reset: h.SandboxState != nil}
	if d.Chaos, err = h.chaosForms(q, sent); err != nil {
		return err
	}
	for _, a := range quickAdvances {
		d.Advance = append(d.Advance, option{Value: strconv.FormatInt(int64(a.d/time.Second), 10), Label: a.label})
	}
	for _, u := range clockUnits {
		d.Units = append(d.Units, option{Value: u.name, Label: u.name, Selected: u.name == unit})
	}
	h.show(w, q, status, "clock", "Sandbox", "Sandbox", d, note, problem)
	return nil
}

// describeOffset says how far a clock is ahead of the wall clock.
func describeOffset(d time.Duration) string {
	if d <= 0 {
		return "at the wall clock"
	}
	days := int64(d / (24 * time.Hour))
	rest := d - time.Duration(days)*24*time.Hour
	var parts []string
	if days > 0 {
		parts = append(parts, plural(days, "day"))
	}
	if rest > 0 {
		parts = append(parts, rest.Round(time.Second).String())
	}
	return strings.Join(parts, " ") + " ahead of the wall clock"
}

// advanceClock is POST /dashboard/clock/advance: a quick advance
// (seconds), or a number of minutes, hours or days; as POST
// /sandbox/clock/advance.
func (h *sandboxPages) advanceClock(w http.ResponseWriter, q *req) error {
	form := q.PostForm
	amount, unit := strings.TrimSpace(form.Get("amount")), form.Get("unit")
	refuse := func(msg string) error {
		return h.sandboxPage(w, q, http.StatusUnprocessableEntity, "", &problemView{Message: msg}, amount, unit, nil)
	}
	var d time.Duration
	if s := form.Get("seconds"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			return refuse("Choose how far to move the clock.")
		}
		d = time.Duration(n) * time.Second
	} else {
		var per time.Duration
		for _, u := range clockUnits {
			if u.name == unit {
				per = u.d
			}
		}
		n, err := strconv.ParseInt(amount, 10, 64)
		if per == 0 || err != nil || n < 1 || n > int64(clock.MaxAdvance/per) {
			return refuse(fmt.Sprintf("Enter a whole number of minutes, hours or days, from 1 to %d days in all.", int64(clock.MaxAdvance/(24*time.Hour))))
		}
		d = time.Duration(n) * per
	}
	if d > clock.MaxAdvance {
		return refuse(fmt.Sprintf("One move is at most %d days.", int64(clock.MaxAdvance/(24*time.Hour))))
	}
	c, err := h.Sandbox.Advance(q.ctx(), q.viewer(), d)
	if errors.Is(err, clock.ErrOffsetBound) {
		return refuse(fmt.Sprintf("The clock may be at most 10 years ahead of the wall clock; it is %s. Reset it first.", describeOffset(c.Offset)))
	}
	if err != nil {
		return err
	}
	return done(w, q, Prefix+"clock", "advanced")
}

// resetClock is POST /dashboard/clock/reset: back to the wall clock.
func (h *sandboxPages) resetClock(w http.ResponseWriter, q *req) error {
	if _, err := h.Sandbox.Reset(q.ctx(), q.viewer()); err != nil {
		return err
	}
	return done(w, q, Prefix+"clock", "reset")
}

// confirmReset is GET /dashboard/sandbox/reset: the reset's confirmation.
func (h *sandboxPages) confirmReset(w http.ResponseWriter, q *req) error {
	h.show(w, q, http.StatusOK, "reset", "Reset the sandbox", "Sandbox", nil, "", nil)
	return nil
}

// resetSandbox is POST /dashboard/sandbox/reset: the data of the user's
// own customer tree back to its seed state, as POST /sandbox/reset with
// scope TREE. Only the confirmation page's form (confirm=reset) does it;
// users, applications and sessions stay, so it ends on the sandbox page.
func (h *sandboxPages) resetSandbox(w http.ResponseWriter, q *req) error {
	if q.PostForm.Get("confirm") != "reset" {
		h.show(w, q, http.StatusUnprocessableEntity, "reset", "Reset the sandbox", "Sandbox", nil, "",
			&problemView{Message: "Confirm the reset with the button below; nothing was done."})
		return nil
	}
	if _, err := h.SandboxState.ResetTree(q.ctx()); err != nil {
		return err
	}
	return done(w, q, Prefix+"clock", "tree-reset")
}
