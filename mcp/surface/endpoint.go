package surface

import (
	"context"

	"github.com/jarvisbot/jarvisbot/internal/httpsite"
)

// Endpoint is the surface served on one of serve's listeners (M4).
type Endpoint struct {
	*httpsite.Endpoint
	surf *Server
}

// Serve serves the surface on the listener site holds (bound, with its
// TLS, by httpsite.Site.Open before anything started); nil when it holds
// none.
func (s *Server) Serve(site httpsite.Site) *Endpoint {
	if site.Listener == nil {
		return nil
	}
	ep, _, err := httpsite.Serve(site, s.Handler(), s.log)
	if err != nil { // bound and with its TLS already: nothing can fail
		s.log.Error("the MCP endpoint for apps is not served", "err", err)
		return nil
	}
	return &Endpoint{Endpoint: ep, surf: s}
}

// Close stops the endpoint; requests in flight get a few seconds.
func (e *Endpoint) Close() {
	if e == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), httpsite.CloseTimeout)
	defer cancel()
	_ = e.surf.Shutdown(ctx) // its sessions end with the process anyway
	e.Endpoint.Shutdown(ctx)
}
