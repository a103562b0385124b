package signin

import (
	"context"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// Servers is what finishing a plugin's sign-in needs of the store: the
// plugin is marked connected and its servers, off until now, switched on.
type Servers interface {
	SetPluginState(ctx context.Context, name string, state store.PluginState) error
	MCPServers(ctx context.Context) ([]store.MCPServer, error)
	SetMCPServerEnabled(ctx context.Context, name string, enabled bool) error
}

// A Plugin is what a browser sign-in needs to know of a plugin.
type Plugin struct {
	Name, DisplayName string
	URL               string // its hosted MCP server
	Scopes            []string
}

// SignIn runs the browser sign-in of an installed plugin (P3): link is
// told the address to open, the callback lands on this Manager's
// listener, the tokens go to the keyring, and the plugin's servers are
// switched on. On failure the plugin stays installed, and the error says
// how to try again.
func (m *Manager) SignIn(ctx context.Context, db Servers, p Plugin, link func(url string)) error {
	url, err := m.Begin(ctx, p.Name, p.URL, p.Scopes)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "sign-in to %s could not start: %w; the plugin stays installed, try again with jarvisbot plugins signin %s", p.DisplayName, err, p.Name)
	}
	link(url)
	if err := m.Wait(ctx, p.Name); err != nil {
		return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "sign-in to %s did not complete: %w; the plugin stays installed, try again with jarvisbot plugins signin %s", p.DisplayName, err, p.Name)
	}
	return Connected(ctx, db, p.Name)
}

// Connected records that plugin signed in: it is connected and its
// servers are on.
func Connected(ctx context.Context, db Servers, plugin string) error {
	if err := db.SetPluginState(ctx, plugin, store.PluginConnected); err != nil {
		return err
	}
	servers, err := db.MCPServers(ctx)
	if err != nil {
		return err
	}
	for _, s := range servers {
		if s.Plugin == plugin {
			if err := db.SetMCPServerEnabled(ctx, s.Name, true); err != nil {
				return err
			}
		}
	}
	return nil
}
