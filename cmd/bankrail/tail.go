package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/client"
	"github.com/bankrail/bankrail/internal/notify"
)

const notificationsHelp = `Usage: bankrail notifications <command> [flags]

Commands:
  tail    follow the delivery log live, and re-deliver each notification to a local receiver
  resend  deliver one notification again, now: bankrail notifications resend <notification id>

Run 'bankrail notifications <command> --help' for its flags.
`

const tailHelp = `Usage: bankrail notifications tail [--event TYPES] [--forward-to URL] [--secret S] [--interval D] [--json]

Follows the delivery log of your application live (GET /notifications and each notification's
attempts, polled every --interval), like 'stripe listen': every new notification and every new
delivery attempt is printed as it happens, until Ctrl-C. Notifications from before the start
are not printed, but their further attempts are.

With --forward-to, each new notification is also POSTed to URL (your receiver on localhost),
signed afresh exactly as bankrail signs (X-Service-Signed, X-Service-Timed, the same body and
X-Service-Notification-Id) with the application's notification secret (--secret, or the profile's
--notification-secret of 'bankrail login'): verify it with the public package
github.com/bankrail/bankrail/notification as you would bankrail's own delivery. Each is forwarded
once; the answer of your receiver is printed.

Each line names what the notification is about by its kind: "payment <id>" (gateway, payment_*
and refund_* notifications, which are ordered with their payment), "payout <id>" (payout_* and
account_holder_verification_*), "mandate <id>", "channel <id>". --event keeps only some types:
a comma-separated list, where a name ending in * is a prefix (--event 'payout_*,refund_confirmed';
"gateway" is the notifications without X-Service-Type). Only those are printed and forwarded.
`

const resendHelp = `Usage: bankrail notifications resend <notification id> [--json]

Delivers a notification again, now (POST /notifications/{id}/redeliver), whatever its status,
signed afresh; 'bankrail notifications tail' shows the new attempt. Find ids with tail or the
dashboard.
`

// notifications serves `bankrail notifications <command>`.
func notifications(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) > 0 && args[0] == "tail":
		return tail(ctx, args[1:], stdout, stderr)
	case len(args) > 0 && args[0] == "resend":
		return resend(ctx, args[1:], stdout, stderr)
	case len(args) > 0 && isHelp(args[0]):
		fmt.Fprint(stdout, notificationsHelp)
		return 0
	case len(args) > 0:
		fmt.Fprintf(stderr, "bankrail: unknown command %q\n\n", "notifications "+args[0])
	}
	fmt.Fprint(stderr, notificationsHelp)
	return 2
}

// tail serves `bankrail notifications tail`.
func tail(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var conn connection
	t := tailer{}
	fs := newFlagSet("notifications tail", tailHelp)
	conn.bind(fs)
	fs.StringVar(&t.forwardTo, "forward-to", "", "re-deliver each new notification, signed, to this URL")
	fs.Func("event", "only these notification types, comma-separated; a trailing * is a prefix (payout_*); gateway: those without a type",
		func(v string) error { return t.events.set(v) })
	fs.StringVar(&t.secret, "secret", "", "the application's notification secret for --forward-to (default: the profile's)")
	fs.DurationVar(&t.interval, "interval", time.Second, "how often to poll the delivery log")
	fs.BoolVar(&t.json, "json", false, "print one JSON object per event (for scripts)")
	if err := parse(fs, args); err != nil {
		return exitCode(fs, err, stdout, stderr)
	}
	if t.interval <= 0 {
		return exitCode(fs, fmt.Errorf("--interval must be positive"), stdout, stderr)
	}
	p, err := conn.resolve()
	if err == nil && t.forwardTo != "" && t.secret == "" {
		if t.secret = p.NotificationSecret; t.secret == "" {
			err = errors.New("--forward-to signs with the application's notification secret: pass --secret, or store it with bankrail login --notification-secret")
		}
	}
	if err == nil {
		t.c, err = profileClient(p)
	}
	if err != nil {
		fmt.Fprintln(stderr, "bankrail:", err)
		return 1
	}
	t.out, t.http = stdout, &http.Client{Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if err := t.run(ctx, p); err != nil && ctx.Err() == nil {
		fmt.Fprintln(stderr, "bankrail:", err)
		return 1
	}
	return 0
}

// tailer follows the delivery log.
type tailer struct {
	c         *client.Client
	http      *http.Client
	out       io.Writer
	json      bool
	forwardTo string
	secret    string
	interval  time.Duration
	events    eventFilter

	seen map[string]*tracked
}

// tracked is what was printed of a notification: the number of its last
// attempt printed, and its status then. (A notification's attemptCount
// counts an attempt from the moment it starts; the attempt is in the log
// once it ended.)
type tracked struct {
	printed int64
	status  api.NotificationStatus
}

// pageLimit is the page size of every poll; maxPages bounds the pages one
// poll reads of each list.
const (
	pageLimit = 100
	maxPages  = 10
)

// run polls until ctx ends.
func (t *tailer) run(ctx context.Context, p profile) error {
	t.seen = map[string]*tracked{}
	if err := t.poll(ctx, true); err != nil {
		return err
	}
	if t.json {
		t.emit(map[string]any{"event": "listening", "url": p.URL, "username": p.Username, "forwardTo": t.forwardTo})
	} else {
		fmt.Fprintf(t.out, "Following the delivery log of %s as %s", p.URL, p.Username)
		if t.forwardTo != "" {
			fmt.Fprintf(t.out, ", forwarding to %s", t.forwardTo)
		}
		fmt.Fprintln(t.out, ". Ctrl-C to stop.")
	}
	tick := time.NewTicker(t.interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		if err := t.poll(ctx, false); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			t.warn(err)
		}
	}
}

// poll reads the newest notifications (until a page of known ones) and the
// PENDING ones, refreshes those that were PENDING, and prints what is new.
// The first poll (baseline) only takes note.
func (t *tailer) poll(ctx context.Context, baseline bool) error {
	var fresh []api.Notification
	byID := map[string]api.Notification{}
	for page := int64(1); page <= maxPages; page++ {
		pg, err := t.c.ListNotifications(ctx, &api.ListNotificationsParams{Page: &page, Limit: client.Ptr[int64](pageLimit)})
		if err != nil {
			return err
		}
		known := true
		for _, n := range pg.Items {
			if _, ok := byID[n.ID]; ok {
				continue
			}
			byID[n.ID] = n
			fresh = append(fresh, n)
			if t.seen[n.ID] == nil {
				known = false
			}
		}
		if known || baseline || pg.Last() {
			break
		}
	}
	pending := api.NotificationStatusPENDING
	for page := int64(1); page <= maxPages; page++ {
		pg, err := t.c.ListNotifications(ctx, &api.ListNotificationsParams{Status: &pending, Page: &page, Limit: client.Ptr[int64](pageLimit)})
		if err != nil {
			return err
		}
		for _, n := range pg.Items {
			if _, ok := byID[n.ID]; !ok {
				byID[n.ID] = n
				fresh = append(fresh, n)
			}
		}
		if pg.Last() {
			break
		}
	}
	if baseline {
		for _, n := range fresh {
			t.seen[n.ID] = &tracked{printed: n.AttemptCount, status: n.Status}
		}
		return nil
	}
	// Those that were PENDING and are not any more moved on: read them.
	for id, tr := range t.seen {
		if _, ok := byID[id]; !ok && tr.status == api.NotificationStatusPENDING {
			n, err := t.c.GetNotification(ctx, id)
			if err != nil {
				return err
			}
			byID[id] = *n
			fresh = append(fresh, *n)
		}
	}
	// Oldest first, as the log orders them (newest first: createdAt, then id).
	slices.SortFunc(fresh, func(a, b api.Notification) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	for _, n := range fresh {
		tr := t.seen[n.ID]
		if !t.events.match(n.Type) { // noted, so that polls stop at known ones, never printed
			t.seen[n.ID] = &tracked{printed: n.AttemptCount, status: n.Status}
			continue
		}
		if tr == nil {
			tr = &tracked{}
			t.seen[n.ID] = tr
			t.printNotification(n)
			if t.forwardTo != "" {
				t.forward(ctx, n)
			}
		}
		if n.AttemptCount > tr.printed || n.Status != tr.status {
			full, err := t.c.GetNotification(ctx, n.ID)
			if err != nil {
				return err
			}
			if full.Attempts != nil {
				for _, a := range *full.Attempts {
					if a.Number > tr.printed {
						t.printAttempt(*full, a)
						tr.printed = a.Number
					}
				}
			}
			tr.status = full.Status
		}
	}
	return nil
}

// bodyStatus is the status field of a notification's body, if any.
func bodyStatus(body json.RawMessage) string {
	var b struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(body, &b)
	return b.Status
}

func (t *tailer) emit(v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(t.out, "%s\n", b)
}

func (t *tailer) warn(err error) {
	if t.json {
		t.emit(map[string]any{"event": "error", "error": err.Error()})
		return
	}
	fmt.Fprintf(t.out, "%s  ! %v (retrying)\n", clockNow(), err)
}

func clockNow() string { return time.Now().Format("15:04:05") }

func (t *tailer) printNotification(n api.Notification) {
	if t.json {
		t.emit(map[string]any{"event": "notification", "notification": n})
		return
	}
	about := ""
	if n.PaymentID != nil {
		about = " " + subjectKind(n.Type) + " " + *n.PaymentID
	}
	if s := bodyStatus(n.Body); s != "" {
		about += " " + s
	}
	fmt.Fprintf(t.out, "%s  notification %s  %s%s\n", clockNow(), n.ID, n.Type, about)
}

func (t *tailer) printAttempt(n api.Notification, a api.NotificationAttempt) {
	if t.json {
		t.emit(map[string]any{"event": "attempt", "notificationId": n.ID, "type": n.Type, "status": n.Status, "attempt": a})
		return
	}
	outcome := "failed"
	if a.Success {
		outcome = "delivered"
	}
	answer := "no answer"
	if a.ResponseStatus != nil {
		answer = fmt.Sprintf("HTTP %d", *a.ResponseStatus)
	}
	if a.Error != nil && *a.Error != "" {
		answer += ": " + *a.Error
	}
	fmt.Fprintf(t.out, "%s  attempt %d of %s  %s, %s in %.1f ms to %s (now %s)\n", clockNow(), a.Number, n.ID, outcome, answer,
		a.LatencyMs, orDash(a.URL), n.Status)
}

// forward re-delivers n to --forward-to, signed with the application's
// secret by the server's own signing code, and prints the answer.
func (t *tailer) forward(ctx context.Context, n api.Notification) {
	typ := n.Type
	if typ == "gateway" { // the log's name for "no X-Service-Type"
		typ = ""
	}
	req := notify.BuildRequest(notify.Notification{ID: n.ID, Type: typ, Body: n.Body}, t.forwardTo, t.secret, time.Now())
	began := time.Now()
	status, err := t.post(ctx, req)
	latency := float64(time.Since(began).Microseconds()) / 1000
	if t.json {
		ev := map[string]any{"event": "forward", "notificationId": n.ID, "url": t.forwardTo, "latencyMs": latency}
		if err != nil {
			ev["error"] = err.Error()
		} else {
			ev["responseStatus"] = status
		}
		t.emit(ev)
		return
	}
	answer := fmt.Sprintf("HTTP %d", status)
	if err != nil {
		answer = err.Error()
	}
	fmt.Fprintf(t.out, "%s  forwarded %s  to %s: %s in %.1f ms\n", clockNow(), n.ID, t.forwardTo, answer, latency)
}

// post sends one signed request and returns the receiver's status.
func (t *tailer) post(ctx context.Context, r notify.Request) (int, error) {
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return 0, err
	}
	for k, v := range r.Headers {
		hr.Header.Set(k, v)
	}
	resp, err := t.http.Do(hr)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, nil
}
