package mcphost

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/store"
)

// Adding the owner's servers (M1, X3): each is checked, started and
// listed before it is recorded, switched on. Literal credentials in its
// settings move to the keyring and the settings refer to them; a server
// that does not answer is not added and its secrets are not kept.

// ServerStore is what adding servers needs of the store.
type ServerStore interface {
	MCPServer(ctx context.Context, name string) (store.MCPServer, error)
	AddMCPServers(ctx context.Context, list []store.MCPServer) error
}

// Keyring is what moving literal secrets needs of the keyring: the names
// in it, so that a moved secret takes none of them, and writes that can be
// taken back.
type Keyring interface {
	Names(ctx context.Context) ([]string, error)
	SecretWriter
}

// Adder adds servers to the store.
type Adder struct {
	Store ServerStore
	// OpenKeyring opens the keyring; it is called only when a literal
	// secret moves.
	OpenKeyring func() (Keyring, error)
	// Dial reaches a server being added. Its Lookup resolves the ${NAME}
	// references the owner wrote; the secrets moved out of the settings
	// resolve from memory until they are kept.
	Dial DialOptions
	// Progress, when set, is told of each server before it is reached.
	Progress func(store.MCPServer)
	// Warn, when set, is told of each tool a server listed that the
	// catalog leaves out.
	Warn func(string)
}

// A Candidate is a server ready to be recorded: its settings hold
// references where literal secrets were, Moves hold their values, and
// after it answered, what it said about itself.
type Candidate struct {
	Server store.MCPServer
	Moves  []SecretMove
	Info   string // the server's name and version, as it told them
	Tools  []catalog.SnapshotTool
}

// Add checks that s answers and lists its tools, then records it.
func (a Adder) Add(ctx context.Context, s store.MCPServer) (Candidate, error) {
	kr, taken, err := a.keyring(ctx, len(Literals(s)) > 0)
	if err != nil {
		return Candidate{}, err
	}
	c, err := a.prepare(ctx, s, taken)
	if err != nil {
		return Candidate{}, err
	}
	a.progress(c.Server)
	if err := a.try(ctx, &c); err != nil {
		return Candidate{}, err
	}
	if err := a.record(ctx, kr, []Candidate{c}); err != nil {
		return Candidate{}, err
	}
	return c, nil
}

// Import adds every server of an mcp.json written for another app, or
// none of them. Every entry is checked first (its name, a clash with a
// stored server or another entry, its settings), then all are started at
// once and listed like Add; only when all pass are their literal secrets
// moved to the keyring and the servers recorded. Each entry that cannot
// be added is told to refused, with its name as it may be shown. It
// returns the servers added and how many entries the file has.
func (a Adder) Import(ctx context.Context, file string, refused func(name string, err error)) ([]Candidate, int, error) {
	entries, err := ReadImport(file)
	if err != nil {
		return nil, 0, err
	}
	failed := func(code jarvisbot.Code, n int) error {
		return jarvisbot.Errorf(code, "nothing was imported: %d of %d servers in %s cannot be added (see above); fix or remove them there and import again", n, len(entries), file)
	}
	list, kr, bad, err := a.plan(ctx, entries, refused)
	if err != nil {
		return nil, 0, err
	}
	if bad > 0 {
		return nil, 0, failed(jarvisbot.EINVALID, bad)
	}
	// Every server is started at once: a slow npx start costs its own
	// time, not the sum. Each result goes to its own slot.
	errs := make([]error, len(list))
	var wg sync.WaitGroup
	for i := range list {
		a.progress(list[i].Server)
		wg.Go(func() { errs[i] = a.try(ctx, &list[i]) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			refused(list[i].Server.Name, err)
			bad++
		}
	}
	if bad > 0 {
		return nil, 0, failed(jarvisbot.EUNAVAILABLE, bad)
	}
	if err := a.record(ctx, kr, list); err != nil {
		return nil, 0, jarvisbot.Errorf(jarvisbot.ErrorCode(err), "nothing was imported: %w", err)
	}
	return list, len(entries), nil
}

// plan prepares every entry that can be read, telling refused of each
// that cannot, and returns the candidates, the keyring their secrets go
// to (nil when none moves) and how many entries were refused.
func (a Adder) plan(ctx context.Context, entries []ImportEntry, refused func(string, error)) ([]Candidate, Keyring, int, error) {
	bad := 0
	var read []ImportEntry
	for _, e := range entries {
		if e.Err != nil {
			refused(ShownName(e.Key), e.Err)
			bad++
			continue
		}
		read = append(read, e)
	}
	// The keyring is read (never written) only when a secret will move.
	kr, taken, err := a.keyring(ctx, slices.ContainsFunc(read, func(e ImportEntry) bool { return len(Literals(e.Server)) > 0 }))
	if err != nil {
		return nil, nil, 0, err
	}
	planned := map[string]bool{} // keyring names the entries before took
	from := map[string]string{}  // server name -> the entry that took it
	list := make([]Candidate, 0, len(read))
	for _, e := range read {
		if prev, ok := from[e.Server.Name]; ok {
			refused(ShownName(e.Key), fmt.Errorf("becomes the server name %s, which %s takes already: rename one of them", e.Server.Name, ShownName(prev)))
			bad++
			continue
		}
		from[e.Server.Name] = e.Key
		c, err := a.prepare(ctx, e.Server, func(n string) bool { return planned[n] || taken(n) })
		if err != nil {
			refused(ShownName(e.Key), err)
			bad++
			continue
		}
		for _, mv := range c.Moves {
			planned[mv.Ref] = true
		}
		list = append(list, c)
	}
	return list, kr, bad, nil
}

// keyring opens the keyring when a secret will move, and returns a
// function that reports the names in it, to keep a moved secret from
// taking an existing one's name.
func (a Adder) keyring(ctx context.Context, needed bool) (Keyring, func(string) bool, error) {
	if !needed {
		return nil, func(string) bool { return false }, nil
	}
	kr, err := a.OpenKeyring()
	if err != nil {
		return nil, nil, jarvisbot.Errorf(jarvisbot.ErrorCode(err), "literal secrets go to the keyring, which cannot be opened: %w", err)
	}
	names, err := kr.Names(ctx)
	if err != nil {
		return nil, nil, jarvisbot.Errorf(jarvisbot.ErrorCode(err), "literal secrets go to the keyring, which cannot be read: %w", err)
	}
	return kr, func(n string) bool { return slices.Contains(names, n) }, nil
}

// prepare moves s's literal secrets out of its settings (nothing is
// written yet) and checks the settings and the name.
func (a Adder) prepare(ctx context.Context, s store.MCPServer, taken func(string) bool) (Candidate, error) {
	moves, err := MoveSecrets(&s, taken)
	if err != nil {
		return Candidate{}, err
	}
	hs := FromStored(s)
	if err := hs.Check(); err != nil {
		return Candidate{}, jarvisbot.Errorf(jarvisbot.EINVALID, "%s", RedactText(s, err.Error()))
	}
	if _, err := a.Store.MCPServer(ctx, s.Name); err == nil {
		return Candidate{}, jarvisbot.Errorf(jarvisbot.ECONFLICT, "an MCP server named %s exists already: remove it first (jarvisbot mcp remove %s) or choose another name", s.Name, s.Name)
	}
	return Candidate{Server: s, Moves: moves}, nil
}

func (a Adder) progress(s store.MCPServer) {
	if a.Progress != nil {
		a.Progress(s)
	}
}

// try connects to a candidate, with its moved secrets resolved from
// memory, and records what it answered.
func (a Adder) try(ctx context.Context, c *Candidate) error {
	pending := map[string]string{}
	for _, mv := range c.Moves {
		pending[mv.Ref] = mv.Value
	}
	opt := a.Dial
	opt.Lookup = func(name string) (string, bool) {
		if v, ok := pending[name]; ok {
			return v, true
		}
		if a.Dial.Lookup == nil {
			return "", false
		}
		return a.Dial.Lookup(name)
	}
	cn, err := Dial(ctx, FromStored(c.Server), opt)
	if err != nil {
		return jarvisbot.Errorf(jarvisbot.ErrorCode(err), "not added: %w", err)
	}
	defer cn.Close()
	for _, l := range cn.LeftOut() {
		if a.Warn != nil {
			a.Warn(l.String())
		}
	}
	c.Server.Transport = cn.Transport // after an SSE fallback, remember SSE
	c.Tools = cn.Tools()
	c.Server.Tools = string(ToolsJSON(c.Tools))
	c.Server.Instructions = cn.Instructions // the derived card reads them while the server is not running
	c.Info = cn.Info.Name
	if cn.Info.Version != "" {
		c.Info += " " + cn.Info.Version
	}
	return nil
}

// record keeps the candidates' secrets in the keyring and the candidates
// in the store, all or none: a failure takes back the secrets written.
func (a Adder) record(ctx context.Context, kr Keyring, list []Candidate) error {
	var moves []SecretMove
	servers := make([]store.MCPServer, len(list))
	for i, c := range list {
		moves = append(moves, c.Moves...)
		servers[i] = c.Server
	}
	undo := func() error { return nil }
	if len(moves) > 0 {
		u, err := KeepSecrets(ctx, kr, moves)
		if err != nil {
			return err
		}
		undo = u
	}
	if err := a.Store.AddMCPServers(ctx, servers); err != nil {
		if uerr := undo(); uerr != nil {
			return errors.Join(err, uerr)
		}
		return err
	}
	return nil
}
