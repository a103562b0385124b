package signin

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/store"
)

// A plugin's MCP server is reached through its sign-in the same way by the
// running service (mcphost.Host, with Recorder as its OnState) and by the
// one-shot commands (Dial), and both keep the plugin's state in the store
// in step with what the server says of the sign-in: the commands that read
// the store (catalog list, route, plugins list) take a plugin's tools away
// once it needs attention (P4).

// States is what keeping a plugin's state in step with its server needs
// of the store.
type States interface {
	SetPluginState(ctx context.Context, name string, state store.PluginState) error
}

// Through returns hs with its HTTP requests carrying the sign-in of its
// plugin.
func (m *Manager) Through(hs mcphost.Server) mcphost.Server {
	hs.Client = &http.Client{Transport: m.Transport(hs.Plugin, nil)}
	return hs
}

// Dial connects once to a plugin's server through its sign-in, for a
// command that runs no host. When the server refuses the token (401), the
// transport marks it invalid: Dial renews it once, or finds the sign-in
// gone, and tries again. A sign-in that needs attention is recorded in db
// and the error says how to renew it, and, when db refuses the record,
// what the other commands show meanwhile.
func (m *Manager) Dial(ctx context.Context, db States, hs mcphost.Server, opt mcphost.DialOptions) (*mcphost.Conn, error) {
	hs = m.Through(hs)
	cn, err := mcphost.Dial(ctx, hs, opt)
	if err != nil && !errors.Is(err, ErrNeedsAttention) {
		if _, terr := m.Token(ctx, hs.Plugin); terr != nil {
			err = terr
		} else {
			cn, err = mcphost.Dial(ctx, hs, opt)
		}
	}
	if !errors.Is(err, ErrNeedsAttention) {
		return cn, err
	}
	if serr := db.SetPluginState(ctx, hs.Plugin, store.PluginNeedsAttention); serr != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%w; renew it with jarvisbot plugins signin %s (that it needs attention could not be recorded, so catalog list and route still show it connected: %v)", err, hs.Plugin, serr)
	}
	return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "%w; renew it with jarvisbot plugins signin %s", err, hs.Plugin)
}

// Recorder returns the host's OnState callback, which keeps a plugin's
// state in the store in step with its server: connected once it answers;
// needs attention when its sign-in expired or was revoked, and the owner
// is told once, until a renewed sign-in brings it back at the next retry.
//
// A write the store refuses is logged with the plugin and what the other
// commands show meanwhile; the next change of the server's state writes it
// again.
func Recorder(db States, log *slog.Logger) func(mcphost.Server, mcphost.State, error) {
	var told sync.Map // plugins whose owner was told of an expired sign-in
	record := func(srv mcphost.Server, state store.PluginState, shown string) {
		if err := db.SetPluginState(context.Background(), srv.Plugin, state); err != nil {
			log.Error("a plugin's state could not be recorded; "+shown, "plugin", srv.Plugin, "server", srv.Name, "state", string(state), "err", err)
		}
	}
	return func(srv mcphost.Server, st mcphost.State, err error) {
		if srv.Plugin == "" {
			return
		}
		switch {
		case st == mcphost.StateUp:
			record(srv, store.PluginConnected, "the service uses its tools, but catalog list, route and plugins list may still show its last recorded state")
			told.Delete(srv.Plugin)
		case errors.Is(err, ErrNeedsAttention):
			record(srv, store.PluginNeedsAttention, "catalog list, route and plugins list may still show it as connected")
			if _, dup := told.LoadOrStore(srv.Plugin, true); !dup {
				log.Warn("a plugin's sign-in needs attention; its tools are off until it is renewed", "plugin", srv.Plugin, "renew", "jarvisbot plugins signin "+srv.Plugin)
			}
		}
	}
}
