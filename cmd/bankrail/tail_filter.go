package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/bankrail/bankrail/client"
)

// eventFilter is tail's --event: notification types, a trailing * making
// a prefix. Empty matches every type.
type eventFilter []string

// set reads a comma-separated list of types.
func (f *eventFilter) set(v string) error {
	*f = nil
	for _, name := range strings.Split(v, ",") {
		if name = strings.TrimSpace(name); name != "" {
			if strings.Contains(strings.TrimSuffix(name, "*"), "*") {
				return fmt.Errorf("%q: only a trailing * is a prefix", name)
			}
			*f = append(*f, name)
		}
	}
	if len(*f) == 0 {
		return fmt.Errorf("name at least one notification type, e.g. payment_received or payout_*")
	}
	return nil
}

// match reports whether typ (as the delivery log names it: "gateway" for
// the notifications without X-Service-Type) is one of the filter's.
func (f eventFilter) match(typ string) bool {
	if len(f) == 0 {
		return true
	}
	for _, name := range f {
		if prefix, ok := strings.CutSuffix(name, "*"); ok && strings.HasPrefix(typ, prefix) || name == typ {
			return true
		}
	}
	return false
}

// subjectKind is the kind of the id a notification of type typ is ordered
// by (the delivery log's paymentId): its payment for gateway, payment_*
// and refund_* notifications, its payout for payout_* and the account
// holder verification's, its mandate, its channel.
func subjectKind(typ string) string {
	switch {
	case strings.HasPrefix(typ, "payout_"), strings.HasPrefix(typ, "account_holder_verification"):
		return "payout"
	case strings.HasPrefix(typ, "mandate_"):
		return "mandate"
	case strings.HasPrefix(typ, "channel_"):
		return "channel"
	}
	return "payment"
}

// resend serves `bankrail notifications resend <id>`.
func resend(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return idCommand("notifications resend", resendHelp, "notification", args, stdout, stderr, func(c *client.Client, id string, asJSON bool) error {
		n, err := c.RedeliverNotification(ctx, id)
		if err != nil {
			return err
		}
		if asJSON {
			return printJSON(stdout, n)
		}
		fmt.Fprintf(stdout, "notification %s (%s) queued for delivery again; now %s\n", n.ID, n.Type, n.Status)
		return nil
	})
}
