package fetch

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"syscall"
)

// ErrBlocked is returned (wrapped) when a dial targets an address the SSRF
// guard refuses: loopback, private, link-local, multicast, unspecified or
// otherwise non-public. The check runs on the address actually dialled, so
// DNS rebinding and redirects to such addresses are refused too.
var ErrBlocked = errors.New("ssrf guard: address not allowed")

// nonPublic are ranges refused besides those netip classifies itself.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),  // documentation
	netip.MustParsePrefix("fec0::/10"),      // deprecated site-local
}

// Blocked reports whether the SSRF guard refuses ip.
func Blocked(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() ||
		ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() ||
		ip.IsMulticast() {
		return true
	}
	for _, p := range nonPublic {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// dialControl is a net.Dialer Control hook: it runs after DNS resolution,
// for every address dialled, and refuses non-public ones unless allowed.
// Addresses inside allow are permitted even when non-public.
func dialControl(allowPrivate bool, allow []netip.Prefix) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		if allowPrivate {
			return nil
		}
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: unparseable dial address %q", ErrBlocked, address)
		}
		for _, p := range allow {
			if p.Contains(ap.Addr().Unmap()) {
				return nil
			}
		}
		if Blocked(ap.Addr()) {
			return fmt.Errorf("%w: %s", ErrBlocked, ap.Addr())
		}
		return nil
	}
}

// ParseCIDRs reads CRAWL_ALLOW_CIDRS: ranges or single addresses, separated
// by commas or spaces; shared by every process that judges or dials
// through the guard, so they all read one setting alike.
func ParseCIDRs(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		if !strings.Contains(f, "/") {
			a, err := netip.ParseAddr(f)
			if err != nil {
				return nil, fmt.Errorf("CRAWL_ALLOW_CIDRS: %q: %w", f, err)
			}
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("CRAWL_ALLOW_CIDRS: %q: %w", f, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
