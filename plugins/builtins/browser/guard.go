package browser

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/net/idna"

	"github.com/jarvisbot/jarvisbot"
)

// The browser fetches what a model asks for, and a model can be talked into
// asking for anything a web page says. So it never reaches an address that
// is not on the public internet (the owner's router, a NAS, a database on
// localhost, the cloud metadata service at 169.254.169.254) unless the
// owner listed it in browser.allow. The rule is applied to the address a
// connection actually goes to, after DNS, on every hop of a redirect chain,
// so neither a redirect nor a name that resolves differently the second
// time (DNS rebinding) gets past it.

// refused is one range of addresses that are not on the public internet,
// and why, in words the owner reads.
type refused struct {
	prefix netip.Prefix
	why    string
}

// refusedRanges are the special-purpose ranges (IANA's registries) besides
// those netip.Addr classifies itself (loopback, private, link-local,
// multicast, unspecified), which check tests first.
var refusedRanges = func() []refused {
	rs := []struct{ cidr, why string }{
		{"0.0.0.0/8", `"this network" (0.0.0.0/8), which reaches this machine`},
		{"100.64.0.0/10", "shared carrier-grade NAT space (100.64.0.0/10)"},
		{"192.0.0.0/24", "reserved for protocol assignments (192.0.0.0/24)"},
		{"192.0.2.0/24", "reserved for documentation (192.0.2.0/24)"},
		{"198.18.0.0/15", "reserved for network benchmarks (198.18.0.0/15)"},
		{"198.51.100.0/24", "reserved for documentation (198.51.100.0/24)"},
		{"203.0.113.0/24", "reserved for documentation (203.0.113.0/24)"},
		{"240.0.0.0/4", "reserved (240.0.0.0/4)"},
		{"::/96", "an IPv4-compatible IPv6 address (::/96)"},
		{"100::/64", "an IPv6 discard address (100::/64)"},
		{"2001:db8::/32", "reserved for documentation (2001:db8::/32)"},
		{"fec0::/10", "a site-local IPv6 address (fec0::/10)"},
	}
	out := make([]refused, len(rs))
	for i, r := range rs {
		out[i] = refused{netip.MustParsePrefix(r.cidr), r.why}
	}
	return out
}()

// Prefixes of IPv6 ranges that carry an IPv4 address inside: the IPv4
// address is what the packet finally reaches, so it is checked too.
var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	nat64loc  = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// whyRefused says why ip is not a public address, or "" when it is one.
func whyRefused(ip netip.Addr) string {
	ip = ip.Unmap() // ::ffff:10.0.0.1 is 10.0.0.1
	switch {
	case !ip.IsValid():
		return "not a valid address"
	case ip.IsLoopback():
		return "a loopback address (this machine)"
	case ip.IsPrivate():
		return "a private network address"
	case ip.IsLinkLocalUnicast():
		if ip == netip.AddrFrom4([4]byte{169, 254, 169, 254}) {
			return "the cloud metadata address (link-local)"
		}
		return "a link-local address"
	case ip.IsUnspecified():
		return "the unspecified address, which reaches this machine"
	case ip.IsMulticast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		return "a multicast address"
	case ip.Is4() && ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "the broadcast address"
	}
	for _, r := range refusedRanges {
		if r.prefix.Contains(ip) {
			return r.why
		}
	}
	if ip.Is6() {
		b := ip.As16()
		var inner netip.Addr
		switch {
		case nat64.Contains(ip), nat64loc.Contains(ip):
			inner = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
		case sixToFour.Contains(ip):
			inner = netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})
		}
		if inner.IsValid() {
			if why := whyRefused(inner); why != "" {
				return fmt.Sprintf("an IPv6 address that carries %s, %s", inner, why)
			}
		}
	}
	return ""
}

// allowList is the owner's browser.allow: host names (exact, or "*.home.arpa"
// for every name below a domain), addresses and CIDR ranges that the
// browser may reach although they are not public.
type allowList struct {
	hosts    map[string]bool
	suffixes []string // ".home.arpa" for "*.home.arpa"
	prefixes []netip.Prefix
}

// parseAllow reads the owner's entries; an entry that is none of the three
// kinds is an error naming it, so a typo does not silently allow nothing.
func parseAllow(entries []string) (allowList, error) {
	a := allowList{hosts: map[string]bool{}}
	for _, e := range entries {
		s := strings.ToLower(strings.TrimSpace(e))
		s = strings.TrimSuffix(s, ".")
		switch {
		case s == "":
			continue
		case strings.Contains(s, "/"):
			p, err := netip.ParsePrefix(s)
			if err != nil {
				return a, fmt.Errorf("browser.allow entry %q is not a CIDR range like 192.168.1.0/24: %w", e, err)
			}
			a.prefixes = append(a.prefixes, p.Masked())
		case strings.HasPrefix(s, "*."):
			if !validHostname(s[2:]) {
				return a, fmt.Errorf("browser.allow entry %q is not a host name pattern like *.home.arpa", e)
			}
			a.suffixes = append(a.suffixes, s[1:])
		default:
			if ip, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
				a.prefixes = append(a.prefixes, netip.PrefixFrom(ip.Unmap(), ip.Unmap().BitLen()))
				continue
			}
			if !validHostname(s) {
				return a, fmt.Errorf("browser.allow entry %q is neither a host name, an address nor a CIDR range", e)
			}
			a.hosts[s] = true
		}
	}
	return a, nil
}

// validHostname accepts what DNS names look like: dot-separated labels of
// letters, digits, hyphens and underscores.
func validHostname(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	return true
}

// host reports whether the owner allowed the host name h, whatever it
// resolves to.
func (a allowList) host(h string) bool {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if a.hosts[h] {
		return true
	}
	for _, s := range a.suffixes {
		if strings.HasSuffix(h, s) {
			return true
		}
	}
	return false
}

// addr reports whether the owner allowed the address ip.
func (a allowList) addr(ip netip.Addr) bool {
	ip = ip.Unmap()
	for _, p := range a.prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// forbidden is the error for a refused address: what was refused, why, and
// what the owner can do about it when the address is theirs.
func forbidden(host string, ip netip.Addr, why string) error {
	what := ip.String()
	if host != "" && host != what {
		what = fmt.Sprintf("%s (%s)", host, ip)
	}
	return jarvisbot.Errorf(jarvisbot.EFORBIDDEN,
		"refused to connect to %s: it is %s, not a public web address; the browser only reaches the public internet (add it to browser.allow in the config if it is yours)",
		what, why)
}

// checkURL checks what can be checked before any connection: the scheme,
// that there is a host, and a literal address in it. Host names are
// checked when they are resolved, at connect time (see guard.dial).
func (g *guard) checkURL(u *url.URL) error {
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%q is not a full web address: give one that starts with https://", u.String())
	default:
		return jarvisbot.Errorf(jarvisbot.EINVALID, "refused %s: the browser opens only http and https addresses, not %s:", clipURL(u.String()), strings.ToLower(u.Scheme))
	}
	host := u.Hostname()
	if host == "" {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%q has no host name: give a full address such as https://example.org/page", u.String())
	}
	if u.User != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "refused %s: addresses with a user name or password in them are not opened", u.Redacted())
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return g.checkIP("", ip)
	}
	if ip, ok := numericIPv4(host); ok {
		return g.checkIP("", ip)
	}
	ascii, err := idna.Lookup.ToASCII(host) // bücher.example is xn--bcher-kva.example
	if err != nil || !validHostname(strings.TrimSuffix(strings.ToLower(ascii), ".")) {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%q is not a valid host name", host)
	}
	return nil
}

// checkIP applies the rule to one address the browser is about to reach
// for host (the name in the URL, "" for a literal address).
func (g *guard) checkIP(host string, ip netip.Addr) error {
	if g.allow.addr(ip) || host != "" && g.allow.host(host) {
		return nil
	}
	if why := whyRefused(ip); why != "" {
		return forbidden(host, ip.Unmap(), why)
	}
	return nil
}

// A guard connects only where the rule allows. Its dial resolves the name
// itself and connects to the very addresses it checked, so the answer DNS
// gives a second time does not matter.
type guard struct {
	allow  allowList
	dialer *net.Dialer
	// lookup resolves a host name; net.DefaultResolver's in production,
	// a table in tests (which need names that resolve to chosen addresses
	// without a DNS server).
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
}

func newGuard(allow allowList) *guard {
	g := &guard{allow: allow}
	g.dialer = &net.Dialer{ControlContext: g.control}
	g.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}
	return g
}

// hostKey carries the host name being dialed to control.
type hostKey struct{}

// dial connects to addr ("host:port") for the HTTP transport and the
// Chromium proxy. Each resolved address is checked before it is tried; a
// name with only refused addresses is refused with the first reason.
func (g *guard) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "bad address %q: %w", addr, err)
	}
	var ips []netip.Addr
	name := ""
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		name = host
		ips, err = g.lookup(ctx, host)
		if err != nil {
			var dnsErr *net.DNSError
			if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
				return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the host name %s does not exist (DNS found no address for it): check the spelling", host)
			}
			return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "cannot look up %s: %w", host, err)
		}
	}
	var firstRefusal, lastErr error
	for _, ip := range ips {
		if err := g.checkIP(name, ip); err != nil {
			if firstRefusal == nil {
				firstRefusal = err
			}
			continue
		}
		c, err := g.dialer.DialContext(context.WithValue(ctx, hostKey{}, name), network, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	switch {
	case lastErr != nil:
		return nil, lastErr
	case firstRefusal != nil:
		return nil, firstRefusal
	}
	return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the host name %s has no address", host)
}

// control is the last check, on the address the socket is about to
// connect to: dial already checked it, and this keeps it so if anything
// else ever dials through the same dialer.
func (g *guard) control(ctx context.Context, network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.EFORBIDDEN, "refused to connect to %q: not an address the browser can check", address)
	}
	name, _ := ctx.Value(hostKey{}).(string)
	return g.checkIP(name, ap.Addr())
}

// clipURL shortens a URL for a message: a data: or javascript: URL can be
// as long as a page.
func clipURL(s string) string {
	const most = 120
	if len(s) <= most {
		return s
	}
	return s[:most] + "…"
}

// numericIPv4 reads a host the way web browsers do when its last label is a
// number (the WHATWG URL standard's IPv4 parser): "2130706433", "0x7f.1"
// and "127.1" are all 127.0.0.1. Chromium connects there, so the rule must
// see the address, not a name.
func numericIPv4(host string) (netip.Addr, bool) {
	parts := strings.Split(strings.TrimSuffix(host, "."), ".")
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		base := 10
		switch {
		case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
			p, base = p[2:], 16
		case len(p) > 1 && p[0] == '0':
			p, base = p[1:], 8
		}
		n, err := strconv.ParseUint(p, base, 32)
		if err != nil && !(p == "" && base == 16) {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	last := len(nums) - 1
	for _, n := range nums[:last] {
		if n > 255 {
			return netip.Addr{}, false
		}
	}
	if nums[last] >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v := nums[last]
	for i, n := range nums[:last] {
		v |= n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}
