package plugins

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/store"
)

// Installing and removing a plugin (P2): the record of it, and the MCP
// servers its mcp.json brings among the owner's servers, marked as the
// plugin's. Its manual and its sign-in are the skills and signin
// packages'.

// NeedsSignIn reports whether p signs in in the browser and has a hosted
// MCP server to sign in to.
func (p *Plugin) NeedsSignIn() bool {
	return p.Ext.SignIn != nil && p.Ext.SignIn.Method == SignInOAuth && p.SignInURL() != ""
}

// SignInURL is the address of the hosted MCP server a browser sign-in is
// for: the first by server name, or "".
func (p *Plugin) SignInURL() string {
	if p.MCP == nil {
		return ""
	}
	for _, id := range slices.Sorted(maps.Keys(p.MCP.Servers)) {
		if u := p.MCP.Servers[id].URL; u != "" {
			return u
		}
	}
	return ""
}

// Text says how the owner signs in, for the owner; a nil SignIn is none.
func (si *SignIn) Text() string {
	switch {
	case si == nil || si.Method == SignInNone:
		return "no sign-in"
	case si.Method == SignInOAuth && len(si.Scopes) > 0:
		return "OAuth in the browser, scopes " + strings.Join(si.Scopes, " ")
	case si.Method == SignInOAuth:
		return "OAuth in the browser"
	case si.Method == SignInAPIKey:
		return "an API key, kept in the keyring"
	}
	return si.Method
}

// ConnectNote says what installing p did not do yet: the sign-in and the
// server connection, which the running service makes.
func (p *Plugin) ConnectNote() string {
	si := p.Ext.SignIn
	switch {
	case p.Ext.Channel:
		token := strings.ToUpper(p.Manifest.Name) + "_BOT_TOKEN"
		return "It is one of jarvisbot's chat channels and brings no tools: jarvisbot answers you on " + p.DisplayName() +
			" once its bot token is set (jarvisbot secrets set " + token + ") and the service runs."
	case p.Ext.Builtin:
		return "Its tools are built into jarvisbot; they work once you sign in: jarvisbot plugins signin " + p.Manifest.Name + "."
	case si == nil || si.Method == SignInNone:
		return "jarvisbot connects to its MCP server when the service runs."
	}
	return "jarvisbot connects to its MCP server once you sign in (" + si.Text() + "); until then its tools are not offered."
}

// InstallStore is what installing and removing a plugin needs of the
// store.
type InstallStore interface {
	InstallPlugin(ctx context.Context, name string, state store.PluginState) error
	RemovePlugin(ctx context.Context, name string) error
	AddMCPServer(ctx context.Context, s store.MCPServer) error
	MCPServers(ctx context.Context) ([]store.MCPServer, error)
	RemoveMCPServer(ctx context.Context, name string) error
}

// A ServerAdded is one MCP server of a plugin as installing recorded it.
type ServerAdded struct {
	ID     string
	Server MCPServer
	// Kept: the owner has a server of that name already, which is left as
	// it is.
	Kept bool
	// On: it needs no sign-in, so it is on at once; else it stays off
	// until the owner signs in.
	On bool
}

// Install records p as installed: ECONFLICT when it is installed
// already. Its servers are AddServers'.
func Install(ctx context.Context, db InstallStore, p *Plugin) error {
	name := p.Manifest.Name
	if err := db.InstallPlugin(ctx, name, store.PluginInstalled); err != nil {
		if jarvisbot.ErrorCode(err) == jarvisbot.ECONFLICT {
			return jarvisbot.Errorf(jarvisbot.ECONFLICT, "%s is installed already; to renew its sign-in run jarvisbot plugins signin %s", name, name)
		}
		return err
	}
	return nil
}

// AddServers records the MCP servers of p's mcp.json among the owner's,
// marked as the plugin's, in the order of their names. A server that
// needs no sign-in is on at once; one that needs a sign-in stays off until
// the owner signs in. A server of the same name the owner added by hand
// is left alone. On failure it returns the servers recorded before.
func AddServers(ctx context.Context, db InstallStore, p *Plugin) ([]ServerAdded, error) {
	name := p.Manifest.Name
	if p.MCP == nil {
		return nil, nil
	}
	si := p.Ext.SignIn
	open := si == nil || si.Method == SignInNone
	var out []ServerAdded
	for _, id := range slices.Sorted(maps.Keys(p.MCP.Servers)) {
		srv := p.MCP.Servers[id]
		err := db.AddMCPServer(ctx, store.MCPServer{Name: id, Transport: srv.Type, Command: srv.Command, Args: srv.Args,
			Env: srv.Env, Cwd: srv.Cwd, URL: srv.URL, Headers: srv.Headers, Enabled: open, Plugin: name})
		kept := jarvisbot.ErrorCode(err) == jarvisbot.ECONFLICT
		if err != nil && !kept {
			return out, err
		}
		out = append(out, ServerAdded{ID: id, Server: srv, Kept: kept, On: open})
	}
	return out, nil
}

// Uninstall forgets that the plugin name is installed and removes the MCP
// servers it brought. A local plugin (one installed from a folder) may
// have no record left, which is no error: its copy is what is removed.
func Uninstall(ctx context.Context, db InstallStore, name string, local bool) error {
	err := db.RemovePlugin(ctx, name)
	if err != nil && (!local || jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND) {
		return err
	}
	servers, err := db.MCPServers(ctx)
	if err != nil {
		return err
	}
	for _, s := range servers {
		if s.Plugin == name {
			if err := db.RemoveMCPServer(ctx, s.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

// A Listed plugin is one line of the plugin list.
type Listed struct {
	Name        string   `json:"name"`
	DisplayName string   `json:"display_name"`
	Description string   `json:"description"`
	Kind        string   `json:"kind"` // "builtin", "mcp" or "channel"
	MCP         []string `json:"mcp,omitempty"`
	SignIn      string   `json:"sign_in"`
	State       string   `json:"state"` // "not-installed", or a store.PluginState
}

// NotInstalled is the State of a plugin the owner did not install.
const NotInstalled = "not-installed"

// List is every plugin of the store, sorted by name, with where the owner
// stands with it.
func List(all map[string]*Plugin, installed []store.InstalledPlugin) []Listed {
	state := map[string]store.PluginState{}
	for _, ip := range installed {
		state[ip.Name] = ip.State
	}
	rows := make([]Listed, 0, len(all))
	for _, name := range slices.Sorted(maps.Keys(all)) {
		p := all[name]
		r := Listed{Name: name, DisplayName: p.DisplayName(), Description: p.Manifest.Description, Kind: "builtin", SignIn: "none", State: NotInstalled}
		if si := p.Ext.SignIn; si != nil {
			r.SignIn = si.Method
		}
		if s, ok := state[name]; ok {
			r.State = string(s)
		}
		if p.Ext.Channel {
			r.Kind = "channel"
		}
		if p.MCP != nil {
			r.Kind = "mcp"
			for _, id := range slices.Sorted(maps.Keys(p.MCP.Servers)) {
				srv := p.MCP.Servers[id]
				r.MCP = append(r.MCP, srv.URL+srv.Command)
			}
		}
		rows = append(rows, r)
	}
	return rows
}
