package app

import (
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/app/assembly"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/internal/secretref"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
	"github.com/jarvisbot/jarvisbot/store"
)

// The owner's MCP servers (M1, X3): added, imported, listed, switched,
// removed and tried by hand. Each use case returns what it did as values,
// warnings included, for the door to render; that a server is being
// reached (a first npx start takes a while) is an event given to the
// caller's callback. Inside serve (Installation.Live) a change also brings
// the running host in step, which then says whether the server answers.

// Reaching is the event that a stored server is about to be reached.
type Reaching struct {
	Name   string // as it may be shown (quoted when it holds control characters)
	Target string // its command line or URL
}

// reachingOf is the event for s.
func reachingOf(s store.MCPServer) Reaching {
	return Reaching{Name: mcphost.ShownName(s.Name), Target: mcphost.Target(s)}
}

// tell gives an event to a callback that may be nil.
func tell(reaching func(Reaching), s store.MCPServer) {
	if reaching != nil {
		reaching(reachingOf(s))
	}
}

// NewServer is a server as the owner describes it to AddServer: a local
// server's command line or a remote server's URL, and its settings as
// typed (the flags of `mcp add`, the fields of the dashboard's form).
type NewServer struct {
	Name    string
	Command []string // a local (stdio) server's command line
	URL     string
	SSE     bool     // the URL speaks only the older SSE transport
	Env     []string // K=V for a local server (V may be ${SECRET})
	Headers []string // "K: V" for a remote one (V may hold ${SECRET})
	Timeout time.Duration
	Trusted bool // trust the server's annotations to lower tool tiers
}

// stored is the server to record, switched on.
func (n NewServer) stored() (store.MCPServer, error) {
	s := store.MCPServer{Name: n.Name, Timeout: n.Timeout, Trusted: n.Trusted, Enabled: true}
	if len(n.Command) > 0 {
		s.Transport, s.Command, s.Args = mcphost.Stdio, n.Command[0], n.Command[1:]
	} else {
		s.Transport, s.URL = mcphost.StreamableHTTP, n.URL // checked with the rest (mcphost.Server.Check)
		if n.SSE {
			s.Transport = mcphost.SSE
		}
	}
	var err error
	if s.Env, err = KeyValues(n.Env, "=", "--env"); err != nil {
		return s, err
	}
	if s.Headers, err = KeyValues(n.Headers, ":", "--header"); err != nil {
		return s, err
	}
	if s.Transport != mcphost.Stdio && len(s.Env) > 0 {
		return s, jarvisbot.Errorf(jarvisbot.EINVALID, "--env is for stdio servers; an HTTP server takes --header")
	}
	return s, nil
}

// KeyValues parses K=V (or "K: V") pairs as typed after flagName.
func KeyValues(list []string, sep, flagName string) (map[string]string, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range list {
		k, v, ok := strings.Cut(kv, sep)
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			if secretref.LiteralSecret(k, kv) {
				kv = "***" // a credential typed without its key is still one
			}
			return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "%s %q: write it as KEY%sVALUE", flagName, kv, sep)
		}
		out[k] = v
	}
	return out, nil
}

// AddedServer is a server added: what it told of itself and where its
// literal secrets went.
type AddedServer struct {
	Name      string
	Transport string // after an SSE fallback, sse
	Info      string // the server's name and version, as it told them
	Tools     []string
	Moved     []MovedSecret
}

// MovedSecret is a literal secret of the settings, now in the keyring
// under Ref and referred to as ${Ref}.
type MovedSecret struct {
	What string // e.g. "value of GITHUB_TOKEN"
	Ref  string
}

// warned collects warnings from servers reached at once.
type warned struct {
	mu   sync.Mutex
	list Warnings
}

func (w *warned) add(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, s)
}

func (w *warned) all() Warnings {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.list
}

// AddServer checks that the server answers and lists its tools, then
// records it switched on, its literal secrets moved to the keyring
// (mcphost.Adder). The warnings come back also when it fails: they were
// true of the server reached.
func (in *Installation) AddServer(ctx context.Context, n NewServer, reaching func(Reaching)) (AddedServer, Warnings, error) {
	s, err := n.stored()
	if err != nil {
		return AddedServer{}, nil, err
	}
	var w warned
	c, err := in.adder(ctx, reaching, &w).Add(ctx, s)
	if err != nil {
		return AddedServer{}, w.all(), err
	}
	in.follow(ctx, c.Server.Name)
	return addedOf(c), w.all(), nil
}

// addedOf is a recorded candidate as the doors see it.
func addedOf(c mcphost.Candidate) AddedServer {
	a := AddedServer{Name: c.Server.Name, Transport: c.Server.Transport, Info: c.Info}
	for _, t := range c.Tools {
		a.Tools = append(a.Tools, t.Name)
	}
	for _, mv := range c.Moves {
		a.Moved = append(a.Moved, MovedSecret{What: mv.What, Ref: mv.Ref})
	}
	return a
}

// Imported is what an import did: every server added, or none and why.
type Imported struct {
	Added   []AddedServer
	Total   int // entries in the file
	Refused []Refused
}

// Refused is an entry of an mcp.json that cannot be added.
type Refused struct {
	Name string // as it may be shown
	Err  error
}

// ImportServers adds every server of an mcp.json written for another app,
// or none of them (mcphost.Adder.Import). The entries refused and the
// warnings come back also when it fails.
func (in *Installation) ImportServers(ctx context.Context, file string, reaching func(Reaching)) (Imported, Warnings, error) {
	var w warned
	var out Imported
	list, total, err := in.adder(ctx, reaching, &w).Import(ctx, file, func(name string, err error) {
		out.Refused = append(out.Refused, Refused{Name: name, Err: err})
	})
	if err != nil {
		return out, w.all(), err
	}
	out.Total = total
	for _, c := range list {
		out.Added = append(out.Added, addedOf(c))
		in.follow(ctx, c.Server.Name)
	}
	return out, w.all(), nil
}

// adder adds servers to this installation's store, reaching them as the
// service would and moving literal secrets to its keyring.
func (in *Installation) adder(ctx context.Context, reaching func(Reaching), w *warned) mcphost.Adder {
	return mcphost.Adder{
		Store: in.DB,
		OpenKeyring: func() (mcphost.Keyring, error) {
			kr, err := in.Env.OpenSecrets(in.Config)
			if err != nil {
				return nil, err
			}
			return kr, nil
		},
		Dial:     in.Env.DialOptions(ctx, in.Config),
		Progress: func(s store.MCPServer) { tell(reaching, s) },
		Warn:     w.add,
	}
}

// follow brings the running host in step with the stored server:
// supervised while it is on, stopped when it is off or gone. A one-off
// command has no host; the next start of serve takes the change up.
func (in *Installation) follow(ctx context.Context, name string) {
	s := in.Live
	if s == nil || s.Host == nil {
		return
	}
	stored, err := in.DB.MCPServer(ctx, name)
	if err != nil || !stored.Enabled {
		s.Host.Stop(name)
		return
	}
	if err := s.Host.Start(s.work, s.HostServer(stored)); err != nil {
		s.log.Warn("MCP server not started", "server", name, "err", err)
	}
}

// FindServer returns a stored server by the name the owner typed. A name
// that no longer passes the checks is shown quoted when it holds control
// characters ("ctl\x1bname"); typed back that way, with or without the
// quotes, it finds the server.
func (in *Installation) FindServer(ctx context.Context, name string) (store.MCPServer, error) {
	s, err := in.DB.MCPServer(ctx, name)
	if jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		return s, err
	}
	for _, q := range []string{name, `"` + name + `"`} {
		if u, uerr := strconv.Unquote(q); uerr == nil && u != name {
			if s, err2 := in.DB.MCPServer(ctx, u); err2 == nil {
				return s, nil
			}
		}
	}
	return s, err
}

// SwitchServer turns a server on or off and returns its stored name. A
// server stored in a state that cannot start (a damaged row, settings
// today's checks refuse) is not switched on: it is to be removed and
// added again.
func (in *Installation) SwitchServer(ctx context.Context, name string, on bool) (string, error) {
	s, err := in.FindServer(ctx, name)
	if err != nil {
		return "", err
	}
	name = s.Name
	if hs := mcphost.FromStored(s); on && (s.Problem != "" || hs.Check() != nil) {
		return "", jarvisbot.Errorf(jarvisbot.EINVALID, "%s cannot be switched on: %s", mcphost.ShownName(name), mcphost.Trouble(s, false))
	}
	if err := in.DB.SetMCPServerEnabled(ctx, name, on); err != nil {
		return "", err
	}
	in.follow(ctx, name)
	return name, nil
}

// ToolResult is what a tool called by hand answered.
type ToolResult struct {
	Text    string
	IsError bool // the tool reported an error; Text says which
}

// CallTool runs one tool of a stored server as the owner, to try the
// server by hand.
func (in *Installation) CallTool(ctx context.Context, name, tool, args string, reaching func(Reaching)) (ToolResult, error) {
	s, err := in.DB.MCPServer(ctx, name)
	if err != nil {
		return ToolResult{}, err
	}
	tell(reaching, s)
	cn, err := in.dial(ctx, s)
	if err != nil {
		return ToolResult{}, err
	}
	defer cn.Close()
	res, err := cn.Call(ctx, tool, json.RawMessage(args), 0)
	if err != nil {
		return ToolResult{}, err
	}
	return ToolResult{Text: res.Text, IsError: res.IsError}, nil
}

// dial connects to a stored server; safe to run at once for several
// servers. A plugin's server that signs in is reached through its
// sign-in (signin.Manager.Dial).
func (in *Installation) dial(ctx context.Context, s store.MCPServer) (*mcphost.Conn, error) {
	hs, opt := mcphost.FromStored(s), in.Env.DialOptions(ctx, in.Config)
	if s.Plugin == "" {
		return mcphost.Dial(ctx, hs, opt)
	}
	if all, err := collection.Load(in.Config.DataDir, io.Discard); err != nil || !all.SignsIn(s.Plugin) {
		return mcphost.Dial(ctx, hs, opt)
	}
	kr, err := in.Env.OpenSecrets(in.Config)
	if err != nil {
		return nil, err
	}
	// It lives as long as the connection does: a one-shot command ends
	// with the process; it starts no listener.
	mgr := signin.NewManager(signin.Options{Keyring: kr, LockDir: SigninLockDir(in.Config)})
	return mgr.Dial(ctx, in.DB, hs, opt)
}

// storedDialer reaches stored servers for assembly.Refresh, telling
// reaching of each.
type storedDialer struct {
	in       *Installation
	reaching func(Reaching)
}

func (d storedDialer) Announce(s store.MCPServer) { tell(d.reaching, s) }
func (d storedDialer) Dial(ctx context.Context, s store.MCPServer) (*mcphost.Conn, error) {
	return d.in.dial(ctx, s)
}

// RefreshCatalog puts the live tools of every enabled stored server in c
// and the cache (assembly.Refresh); a server that does not answer is left
// out, with why on the Env's Stderr.
func (in *Installation) RefreshCatalog(ctx context.Context, c *catalog.Catalog, reaching func(Reaching)) error {
	return assembly.Refresh(ctx, c, in.DB, storedDialer{in, reaching}, in.Env.Stderr)
}
