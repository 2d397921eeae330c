package netguard_test

import (
	"context"
	"net"
	"net/netip"
	"testing"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/netguard"
)

func TestForbidden(t *testing.T) {
	for _, s := range []string{"127.0.0.1", "::1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "fd00:ec2::254",
		"fe80::1", "0.0.0.0", "::", "100.64.0.1", "::ffff:127.0.0.1", "224.0.0.1", "fc00::1"} {
		if !netguard.Forbidden(netip.MustParseAddr(s)) {
			t.Errorf("%s allowed", s)
		}
	}
	for _, s := range []string{"93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "8.8.8.8"} {
		if netguard.Forbidden(netip.MustParseAddr(s)) {
			t.Errorf("%s refused", s)
		}
	}
}

type fakeResolver map[string][]netip.Addr

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if ips, ok := f[host]; ok {
		return ips, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func TestCheckURL(t *testing.T) {
	r := fakeResolver{"public.test": {netip.MustParseAddr("93.184.216.34")}, "rebind.test": {netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.0.0.1")}}
	ctx := context.Background()
	if err := netguard.CheckURL(ctx, r, "https://public.test/hook", "url"); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"http://127.0.0.1:9000/x", "http://[::1]/x", "http://169.254.169.254/latest", "https://rebind.test/",
		"ftp://public.test/", "http://nowhere.test/", "not a url"} {
		err := netguard.CheckURL(ctx, r, u, "communication.notifications.url")
		var e *errs.Error
		if !errs.Is(err, errs.ValidationFailure) {
			t.Errorf("%s: %v", u, err)
			continue
		}
		if e = err.(*errs.Error); e.Fields[0].PropertyPath != "communication.notifications.url" {
			t.Errorf("%s: field %+v", u, e.Fields)
		}
	}
	if err := netguard.Control("tcp", "127.0.0.1:80", nil); err == nil {
		t.Fatal("Control let loopback through")
	}
	if err := netguard.Control("tcp", "93.184.216.34:443", nil); err != nil {
		t.Fatal(err)
	}
}
