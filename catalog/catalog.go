// Package catalog is the one list of everything an agent can be offered
// (C1): plugins, MCP tools, skills, CLI tools and builtins, each with one
// id, a tier (C2) and a connected state. Before every turn it decides, with
// no model call, which of them the model gets (C3): grant, deny, focus and
// the per-turn MCP gate (C5), with the never-list (C4) applied first.
//
// Data flows one way. Sources register capabilities and MCP servers in a
// Catalog; View freezes them into an immutable, indexed snapshot; Plan
// resolves steps 1-3 for one agent once; Plan.Turn runs step 4 for one
// message. Nothing here knows a chat platform or a model.
package catalog

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/jarvisbot/jarvisbot"
)

// Server is an MCP server as the catalog routes to it.
type Server struct {
	ID           string   // "github", "notebooklm-mcp"
	Title        string   // "GitHub"
	Plugin       string   // the store plugin it belongs to, "" if added by hand
	Aliases      []string // other names the owner uses for it
	Card         []string // usage card: words that point at it (from its manual or config)
	Instructions string   // what the server said at initialize
	Trusted      bool     // the owner trusts its annotations to lower tiers
	Connected    bool
	// Native marks a built-in plugin's tools (KindPlugin, Go code run in
	// process) held like a server's, so the gate routes them by the
	// plugin's manual; they are no MCP session and never exported.
	Native bool
	// Past marks a builtin that searches what was said before (A6): the
	// gate offers it when the owner's words refer to the past of the
	// conversation or to remembering (past.go), not by its tools' words.
	Past bool
	// Learned are the owner's words the gate learned for it (learned.go):
	// set by the catalog from SetLearned, kept across SetServer.
	Learned []LearnedWord
}

// Catalog is the registry that sources write to. It is safe for concurrent
// use; readers take a View.
type Catalog struct {
	mu      sync.Mutex
	caps    map[string]Capability
	servers map[string]Server
	tiers   map[string]Tier // owner overrides, by capability id
	learned map[string][]LearnedWord
	// stored holds, by server id, the tool lists SetStoredServer left
	// to read when the server's tools are first needed.
	stored map[string]func() string
	// reread holds, by server id, where a stored list's input schemas are
	// read again when a tool of it is offered (schemas.go).
	reread map[string]Reread
	view   *View // cached until the next change
}

// New returns an empty catalog.
func New() *Catalog {
	return &Catalog{caps: map[string]Capability{}, servers: map[string]Server{}, tiers: map[string]Tier{}, stored: map[string]func() string{}, reread: map[string]Reread{}}
}

// Add registers or replaces a capability.
func (c *Catalog) Add(cp Capability) error {
	kind, _, err := ParseID(cp.ID)
	if err != nil {
		return err
	}
	if cp.Kind == "" {
		cp.Kind = kind
	}
	if cp.Kind != kind {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "capability %s: kind %q does not match its id", cp.ID, cp.Kind)
	}
	cp.fillDefaults()
	if cp.Name == "" {
		_, cp.Name, _ = ParseID(cp.ID)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cp.Server != "" {
		c.readStored(cp.Server) // a stored tool of the same id is replaced, as if read before
	}
	c.caps[cp.ID] = cp
	c.view = nil
	return nil
}

// SetServer registers an MCP server with its tools, replacing what the
// server had before, routing data included.
func (c *Catalog) SetServer(s Server, tools []SnapshotTool) error {
	if err := ValidServerName(s.ID); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%w", err)
	}
	c.putServer(s, serverCaps(s, tools))
	return nil
}

// SetPluginTools registers a built-in plugin's native tools as a server
// named like the plugin (Server.Native), replacing what it had before.
// Each capability must be of kind plugin with an id
// plugin:SERVER/TOOL.
func (c *Catalog) SetPluginTools(s Server, caps []Capability) error {
	if err := ValidServerName(s.ID); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%w", err)
	}
	s.Native = true
	caps = slices.Clone(caps)
	for i := range caps {
		cp := &caps[i]
		if cp.Kind != KindPlugin || cp.ID != "plugin:"+s.ID+"/"+cp.Name {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "plugin tool %s: want kind plugin and id plugin:%s/%s", cp.ID, s.ID, cp.Name)
		}
		cp.Server, cp.Tool, cp.Source, cp.Connected = s.ID, cp.Name, s.ID, s.Connected
		cp.fillDefaults()
	}
	c.putServer(s, caps)
	return nil
}

// SetBuiltinServer registers builtins held like a server's tools, so that
// the gate decides when to offer them and the model can ask for them by
// the server's name (C8) instead of carrying them in every turn. Each
// capability must be of kind builtin. Like a plugin's, the server is
// never exported.
func (c *Catalog) SetBuiltinServer(s Server, caps []Capability) error {
	if err := ValidServerName(s.ID); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%w", err)
	}
	s.Native = true
	caps = slices.Clone(caps)
	for i := range caps {
		cp := &caps[i]
		if cp.Kind != KindBuiltin {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "builtin tool %s of server %s: want kind builtin", cp.ID, s.ID)
		}
		cp.Server, cp.Tool, cp.Connected = s.ID, cp.Name, s.Connected
		cp.fillDefaults()
	}
	c.putServer(s, caps)
	return nil
}

// fillDefaults gives a capability that names no tier the default tier, and
// one without an input schema the schema of a tool that takes no arguments.
func (cp *Capability) fillDefaults() {
	if cp.Tier == "" {
		cp.Tier = TierMonitor
	}
	if len(cp.InputSchema) == 0 {
		cp.InputSchema = defaultSchema
	}
}

// putServer registers s with caps as its tools, replacing what it had.
func (c *Catalog) putServer(s Server, caps []Capability) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropStored(s.ID) // these tools replace the stored list
	c.replaceTools(s.ID, caps)
	c.servers[s.ID] = s
	c.view = nil
}

// SetStoredServer registers an MCP server with the tool list it had when
// last seen, as SetServer does, but reads the list (read, the JSON array
// of SnapshotTools the store keeps) only when its tools are first needed:
// a view, a count of its tools, or a tool added under its name; a list
// that replaces it (SetServer, SetTools) or the server's removal drops it
// unread. serve registers every stored server at start, and decoding and
// checking all their lists (5–10 ms for 300 tools) would otherwise stand
// between the owner and a jarvisbot that hears them. A list that does not
// decode (ReadStoredList) holds no tools.
//
// With reread set, the catalog keeps the tools' input schemas out of
// memory (shelvedCaps) and reads them again through reread when a tool is
// offered (View.WithSchemas); nil keeps them in memory.
func (c *Catalog) SetStoredServer(s Server, read func() string, reread Reread) error {
	if err := ValidServerName(s.ID); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.replaceTools(s.ID, nil)
	c.dropStored(s.ID)
	c.servers[s.ID] = s
	c.stored[s.ID] = read
	if reread != nil {
		c.reread[s.ID] = reread
	}
	c.view = nil
	return nil
}

// dropStored forgets a server's stored list, read or not, when its tools
// are replaced or it leaves; c.mu is held.
func (c *Catalog) dropStored(server string) {
	delete(c.stored, server)
	delete(c.reread, server)
}

// readStored turns a server's stored list into its capabilities, if it
// has one not read yet; c.mu is held. They take the server as it is now,
// connected or not. A stored list leaves with its server (RemoveServer),
// so the server is there.
func (c *Catalog) readStored(server string) {
	read, ok := c.stored[server]
	if !ok {
		return
	}
	delete(c.stored, server)
	c.view = nil
	if _, reread := c.reread[server]; reread {
		// Each tool goes straight into the catalog; a list that turns out
		// not to decode takes back the ones it gave (it had none before).
		var added []string
		err := shelvedCaps(c.servers[server], read(), func(cp Capability) {
			c.caps[cp.ID] = cp
			added = append(added, cp.ID)
		})
		if err != nil {
			for _, id := range added {
				delete(c.caps, id)
			}
		}
		return
	}
	tools, _ := ReadStoredList(read())
	for _, cp := range serverCaps(c.servers[server], tools) {
		c.caps[cp.ID] = cp
	}
}

// readAllStored reads every stored list not read yet; c.mu is held.
func (c *Catalog) readAllStored() {
	for id := range c.stored {
		c.readStored(id)
	}
}

// Servers lists the servers the catalog holds, by id, without reading
// the tool lists SetStoredServer left for later: for what needs only the
// servers (their cards, their names) before any tool is.
func (c *Catalog) Servers() []Server {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.serverList()
}

// serverList is every server with its learned words, by id; c.mu is held.
func (c *Catalog) serverList() []Server {
	out := make([]Server, 0, len(c.servers))
	for _, s := range c.servers {
		s.Learned = c.learned[s.ID]
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Server) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// SetTools replaces a known server's tools and its connected state and
// keeps its routing data (title, aliases, card): a re-list after
// tools/list_changed, or a reconnect, is this call.
func (c *Catalog) SetTools(id string, tools []SnapshotTool, connected bool) error {
	c.mu.Lock()
	s, ok := c.servers[id]
	c.mu.Unlock()
	if !ok {
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no MCP server %q in the catalog", id)
	}
	s.Connected = connected
	caps := serverCaps(s, tools)
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, ok := c.servers[id]; ok {
		cur.Connected = connected
		s = cur
	}
	c.dropStored(id) // the live list replaces the stored one
	c.replaceTools(id, caps)
	c.servers[id] = s
	c.view = nil
	return nil
}

// Tools counts the tools the catalog holds of a server, as last listed
// or live.
func (c *Catalog) Tools(server string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.readStored(server)
	n := 0
	for _, cp := range c.caps {
		if cp.Server == server {
			n++
		}
	}
	return n
}

// RemoveServer takes a server and its tools out of the catalog.
func (c *Catalog) RemoveServer(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropStored(id)
	c.replaceTools(id, nil)
	delete(c.servers, id)
	c.view = nil
}

// replaceTools swaps a server's tools; c.mu is held.
func (c *Catalog) replaceTools(server string, caps []Capability) {
	for id, cp := range c.caps {
		if cp.Server == server {
			delete(c.caps, id)
		}
	}
	for _, cp := range caps {
		c.caps[cp.ID] = cp
	}
}

// serverCaps turns a server's tools into capabilities. Tools the catalog
// cannot hold are left out (AcceptTools): whoever lists a server's tools
// warns about them (mcphost, when the server answers); a stored or
// snapshot list is only read, and one bad tool in it must not make a
// command fail.
func serverCaps(s Server, tools []SnapshotTool) []Capability {
	tools, _ = AcceptTools(s.ID, tools)
	caps := make([]Capability, 0, len(tools))
	for _, t := range tools {
		// AcceptTools checked the schema is a valid object: it is not
		// checked again (this runs for every stored tool at each start).
		schema := offeredSchema(t.InputSchema)
		caps = append(caps, toolCap(s, &t, schema, validEnumValues(schema)))
	}
	return caps
}

// offeredSchema is an accepted tool's input schema as the catalog offers
// it: compacted, or one that takes any arguments when the tool gave none.
func offeredSchema(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return defaultSchema
	}
	return compactValid(raw)
}

// toolCap is the capability of server s's tool t, whose input schema, as
// offered, is schema; enums are the words of its enums (validEnumValues).
func toolCap(s Server, t *SnapshotTool, schema json.RawMessage, enums []string) Capability {
	return Capability{
		ID:          MCPID(s.ID, t.Name),
		Kind:        KindMCP,
		Source:      s.ID,
		Name:        t.Name,
		Description: t.Description,
		InputSchema: schema,
		enums:       enums,
		enumsRead:   true,
		Tier:        toolTier(t.Annotations, s.Trusted),
		Connected:   s.Connected,
		Server:      s.ID,
		Tool:        t.Name,
		title:       toolTitle(*t),
		annotations: t.Annotations,
	}
}

func toolTitle(t SnapshotTool) string {
	if t.Title != "" {
		return t.Title
	}
	if t.Annotations != nil {
		return t.Annotations.Title
	}
	return ""
}

// SetConnected marks a server's tools connected or not (M3): a server that
// stops answering leaves every agent's list at once.
func (c *Catalog) SetConnected(server string, connected bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.servers[server]
	if !ok {
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no MCP server %q in the catalog", server)
	}
	s.Connected = connected
	c.servers[server] = s
	for id, cp := range c.caps {
		if cp.Server == server {
			cp.Connected = connected
			c.caps[id] = cp
		}
	}
	c.view = nil
	return nil
}

// LoadSnapshot registers every server of a snapshot as connected.
func (c *Catalog) LoadSnapshot(s *Snapshot) error {
	for _, srv := range s.MCPServers {
		err := c.SetServer(Server{
			ID: srv.Name, Title: srv.Title, Plugin: srv.Plugin, Aliases: srv.Aliases,
			Card: srv.Card, Instructions: srv.Instructions, Trusted: srv.Trusted, Connected: true,
		}, srv.Tools)
		if err != nil {
			return err
		}
	}
	return nil
}

// SetTier records the owner's tier for a capability id; the owner's word
// wins over every default and annotation.
func (c *Catalog) SetTier(id string, t Tier) error {
	if _, _, err := ParseID(id); err != nil {
		return err
	}
	if _, err := ParseTier(string(t)); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tiers[id] = t
	c.view = nil
	return nil
}

// UpdateServer changes the routing data of a known server (title, aliases,
// card) without touching its tools: the config and the plugin manuals
// supply these after the server itself is known.
func (c *Catalog) UpdateServer(id string, fn func(*Server)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.servers[id]
	if !ok {
		return jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no MCP server %q in the catalog", id)
	}
	fn(&s)
	s.ID = id
	c.servers[id] = s
	c.view = nil
	return nil
}

// View returns the current immutable snapshot of the catalog, building its
// index if anything changed since the last call.
func (c *Catalog) View() *View {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.readAllStored()
	if c.view != nil {
		return c.view
	}
	caps := make([]Capability, 0, len(c.caps))
	for _, cp := range c.caps {
		if t, ok := c.tiers[cp.ID]; ok {
			cp.Tier = t
			cp.ActionTiers = nil
		}
		caps = append(caps, cp)
	}
	c.view = newView(caps, c.serverList())
	c.view.reread = maps.Clone(c.reread)
	return c.view
}

// kindOrder fixes where each kind sits in a tool list: builtins and
// plugins first, MCP tools last, so the prefix that never changes between
// turns comes first.
func kindOrder(k Kind) int {
	switch k {
	case KindBuiltin:
		return 0
	case KindPlugin:
		return 1
	case KindCLI:
		return 2
	case KindSkill:
		return 3
	}
	return 4
}

func compareCaps(a, b *Capability) int {
	if c := cmp.Compare(kindOrder(a.Kind), kindOrder(b.Kind)); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// View is an immutable snapshot of the catalog with its gate index. It is
// safe for concurrent use.
type View struct {
	caps    []Capability // in the fixed order of compareCaps
	byID    map[string]int
	servers []Server // by id
	srvIdx  map[string]int
	never   []bool // caps[i] is on the never-list (C4)
	// srvTools counts each server's tools, so plans size their lists once.
	srvTools []int
	// gate is built when a turn, a route or a prompt first needs it: a
	// view is made each time a server connects or changes its tools, and
	// at start-up most of them are replaced before any message arrives.
	gate func() *Gate
	// usages says per server what it is for (services.go), worked out
	// once per view when a prompt first asks.
	usages func() []string
	// reread reads a stored list again for the schemas its capabilities
	// do not hold (schemas.go), by server id.
	reread map[string]Reread
}

// newView indexes caps and servers, which come sorted by id (serverList).
func newView(caps []Capability, servers []Server) *View {
	slices.SortFunc(caps, func(a, b Capability) int { return compareCaps(&a, &b) })
	v := &View{caps: caps, servers: servers, byID: make(map[string]int, len(caps)), srvIdx: map[string]int{}, never: make([]bool, len(caps))}
	for i := range caps {
		v.byID[caps[i].ID] = i
		v.never[i] = OnNeverList(caps[i].Name) || OnNeverList(caps[i].ID[len(caps[i].Kind)+1:])
	}
	for i, s := range servers {
		v.srvIdx[s.ID] = i
	}
	v.srvTools = make([]int, len(servers))
	for i := range caps {
		if caps[i].Server != "" {
			if si, ok := v.srvIdx[caps[i].Server]; ok {
				v.srvTools[si]++
			}
		}
	}
	v.gate = sync.OnceValue(func() *Gate { return buildGate(v) })
	v.usages = sync.OnceValue(v.serverUsages)
	return v
}

// Capabilities returns every capability in the fixed order. The slice is
// shared: do not modify it.
func (v *View) Capabilities() []Capability { return v.caps }

// Capability returns the capability with the given id.
func (v *View) Capability(id string) (*Capability, bool) {
	i, ok := v.byID[id]
	if !ok {
		return nil, false
	}
	return &v.caps[i], true
}

// Servers returns the MCP servers by id. Do not modify the slice.
func (v *View) Servers() []Server { return v.servers }

// Server returns the MCP server with the given id.
func (v *View) Server(id string) (*Server, bool) {
	i, ok := v.srvIdx[id]
	if !ok {
		return nil, false
	}
	return &v.servers[i], true
}

// Gate returns the view's MCP gate.
func (v *View) Gate() *Gate { return v.gate() }

// Snapshot returns the view's MCP servers and tools in snapshot form, the
// format `catalog export` writes and `route --catalog` reads. The schemas
// a stored list keeps out of memory are read again for it.
func (v *View) Snapshot(ctx context.Context, about string) (*Snapshot, error) {
	s := &Snapshot{Format: SnapshotFormat, About: about, MCPServers: []SnapshotServer{}}
	for _, srv := range v.servers {
		if srv.Native {
			continue // a built-in plugin's tools come with the binary, not a snapshot
		}
		out := SnapshotServer{Name: srv.ID, Title: srv.Title, Plugin: srv.Plugin, Aliases: srv.Aliases,
			Card: srv.Card, Instructions: srv.Instructions, Trusted: srv.Trusted, Tools: []SnapshotTool{}}
		var tools []*Capability
		for i := range v.caps {
			if cp := &v.caps[i]; cp.Kind == KindMCP && cp.Server == srv.ID {
				tools = append(tools, cp)
			}
		}
		tools, err := v.WithSchemas(ctx, tools)
		if err != nil {
			return nil, err
		}
		for _, cp := range tools {
			out.Tools = append(out.Tools, SnapshotTool{Name: cp.Tool, Title: cp.title, Description: cp.Description, InputSchema: cp.InputSchema, Annotations: cp.annotations})
		}
		s.MCPServers = append(s.MCPServers, out)
	}
	return s, nil
}

func (s Server) String() string { return fmt.Sprintf("%s (%s)", s.ID, s.Title) }
