package main

import (
	"net"

	"github.com/jarvisbot/jarvisbot/internal/httpsite"
)

// httpSite is the Telegram webhook's listener in the terms bots.go
// declares it: an httpsite.Site, bound and given its TLS the same way as
// the dashboard's and the MCP endpoint's.
type httpSite struct {
	what, setting, addr string
	explicit            bool
	cert, key           string
}

func (s httpSite) site() httpsite.Site {
	return httpsite.Site{What: s.what, Setting: s.setting, Addr: s.addr, Explicit: s.explicit, Cert: s.cert, Key: s.key}
}

func (s httpSite) bind() (net.Listener, string, error) { return s.site().Bind() }

func (s httpSite) tls(ln net.Listener) (net.Listener, string, error) { return s.site().TLS(ln) }
