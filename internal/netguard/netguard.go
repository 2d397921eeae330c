// Package netguard keeps production notifications away from internal
// networks: it refuses loopback, private, link-local, unspecified,
// multicast, shared (CGNAT) and cloud metadata addresses. The dialer check
// (Control) runs on the address actually dialled, after DNS resolution, so
// a name that resolves to a public address when validated and to an
// internal one when delivered (DNS rebinding) is still refused.
package netguard

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"syscall"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
)

var (
	metadata = []netip.Addr{netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("fd00:ec2::254")}
	blocked  = []netip.Prefix{
		netip.MustParsePrefix("0.0.0.0/8"),     // "this network"
		netip.MustParsePrefix("100.64.0.0/10"), // shared address space (CGNAT)
		netip.MustParsePrefix("192.0.0.0/24"),  // IETF protocol assignments
		netip.MustParsePrefix("198.18.0.0/15"), // benchmarking
		netip.MustParsePrefix("64:ff9b:1::/48"),
	}
)

// Forbidden reports whether ip is an address notifications must not reach
// in production.
func Forbidden(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return true
	}
	for _, m := range metadata {
		if ip == m {
			return true
		}
	}
	for _, p := range blocked {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// Control is a net.Dialer Control function that refuses forbidden
// addresses at connect time.
func Control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("netguard: cannot check address %q: %w", address, err)
	}
	if Forbidden(ap.Addr()) {
		return fmt.Errorf("netguard: %s is a loopback, private, link-local or metadata address, refused in production", ap.Addr())
	}
	return nil
}

// Resolver looks up host names (net.DefaultResolver fits).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// CheckURL validates a notification URL when it is set (a payment's
// communication.notifications.url, an application's URL): an http(s) URL
// whose host does not resolve to a forbidden address. It returns
// VALIDATION_FAILURE naming field. Delivery checks again in the dialer.
func CheckURL(ctx context.Context, r Resolver, raw, field string) error {
	_, err := checkURL(ctx, r, raw, field)
	return err
}

// CheckURLAtStart is CheckURL for a URL read at start-up (the seed file): a
// host name that does not resolve now is accepted, reported by unresolved,
// so that a start does not depend on merchants' DNS; an address that is
// forbidden, or a name that resolves to one, is refused as by CheckURL.
// Delivery checks the addresses it dials.
func CheckURLAtStart(ctx context.Context, r Resolver, raw, field string) (unresolved bool, err error) {
	unresolved, err = checkURL(ctx, r, raw, field)
	if unresolved {
		return true, nil
	}
	return false, err
}

// checkURL is CheckURL, and whether its error is a host that does not
// resolve.
func checkURL(ctx context.Context, r Resolver, raw, field string) (unresolved bool, err error) {
	invalid := func(format string, args ...any) error {
		msg := fmt.Sprintf(format, args...)
		return &errs.Error{Code: errs.ValidationFailure, Message: "The request failed validation; see errors for each field.",
			Fields: []errs.FieldError{{Type: errs.InvalidValue, PropertyPath: field, Message: msg}}}
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return false, invalid("must be an absolute http or https URL")
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		if Forbidden(ip) {
			return false, invalid("must not point to a loopback, private, link-local or metadata address")
		}
		return false, nil
	}
	ips, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil || len(ips) == 0 {
		return true, invalid("host %q does not resolve", host)
	}
	for _, ip := range ips {
		if Forbidden(ip) {
			return false, invalid("host %q resolves to a loopback, private, link-local or metadata address", host)
		}
	}
	return false, nil
}

// Dialer returns a dialer that refuses forbidden addresses when guard is
// true (production) and dials anything otherwise (sandbox).
func Dialer(guard bool) *net.Dialer {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if guard {
		d.Control = Control
	}
	return d
}
