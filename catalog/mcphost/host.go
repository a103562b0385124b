package mcphost

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/internal/clock"
	"github.com/jarvisbot/jarvisbot/internal/retry"
)

// HostOptions tune supervision.
type HostOptions struct {
	Dial DialOptions
	// MinBackoff and MaxBackoff bound the wait before restarting a server
	// that crashed or could not be reached; it doubles from min to max and
	// returns to min after a session that stayed up longer than max.
	MinBackoff, MaxBackoff time.Duration
	// Clock times the waits before a restart; the wall clock when nil.
	Clock clock.Clock
	// PingEvery is how often an HTTP server is pinged to notice that it is
	// gone (a stdio server's exit is noticed at once); 0 means 30 s.
	PingEvery time.Duration
	// MaxResult caps one tool result's text; 0 means DefaultMaxResult.
	MaxResult int
	// Routing, when set, fills a newly registered server's routing data
	// (title, aliases, usage card) from the config and the plugin manuals.
	Routing func(s *catalog.Server)
	// OnState, when set, is told when a server comes up or goes down, with
	// why, once its tools have joined or left the catalog; it must not
	// block.
	OnState func(s Server, state State, err error)
	Logger  *slog.Logger
}

// State is where a supervised server stands.
type State string

// The states.
const (
	StateStarting State = "starting"
	StateUp       State = "up"
	StateDown     State = "down" // crashed or unreachable; a restart is pending
)

// Status is one server's state for `mcp list` and chat.
type Status struct {
	Name     string
	State    State
	Tools    int
	Err      error // why it is down, or the last failure
	Restarts int
}

// Host keeps one live session per enabled server and keeps the catalog in
// step: a server's tools are connected exactly while it is up (M3).
type Host struct {
	cat *catalog.Catalog
	opt HostOptions
	log *slog.Logger

	mu      sync.Mutex
	servers map[string]*managed
	wg      sync.WaitGroup
}

type managed struct {
	srv    Server
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	conn     *Conn
	state    State
	err      error
	restarts int
	// moved is closed, and replaced, whenever the state changes, so that
	// WaitStarted wakes without polling; seen is the state as set() last
	// announced it, after the catalog was brought in step.
	moved chan struct{}
	seen  State
}

// NewHost returns a host that registers servers in cat.
func NewHost(cat *catalog.Catalog, opt HostOptions) *Host {
	if opt.MinBackoff <= 0 {
		opt.MinBackoff = time.Second
	}
	if opt.MaxBackoff < opt.MinBackoff {
		opt.MaxBackoff = max(time.Minute, opt.MinBackoff)
	}
	if opt.Clock == nil {
		opt.Clock = clock.Real{}
	}
	if opt.PingEvery <= 0 {
		opt.PingEvery = 30 * time.Second
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Host{cat: cat, opt: opt, log: log, servers: map[string]*managed{}}
}

// Start begins supervising a server: it connects in the background and
// keeps reconnecting after a crash. Starting a name that is already
// supervised replaces it.
func (h *Host) Start(ctx context.Context, srv Server) error {
	if err := srv.Check(); err != nil {
		return err
	}
	h.Stop(srv.Name)
	ctx, cancel := context.WithCancel(ctx)
	m := &managed{srv: srv, cancel: cancel, done: make(chan struct{}), state: StateStarting, seen: StateStarting, moved: make(chan struct{})}
	h.mu.Lock()
	h.servers[srv.Name] = m
	h.mu.Unlock()
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer close(m.done)
		h.supervise(ctx, m)
	}()
	return nil
}

// Stop ends a server's session and takes its tools out of the catalog
// (`mcp off`, `mcp remove`). Stopping an unknown name does nothing.
func (h *Host) Stop(name string) {
	h.mu.Lock()
	m := h.servers[name]
	delete(h.servers, name)
	h.mu.Unlock()
	if m == nil {
		return
	}
	m.cancel()
	<-m.done
	h.cat.RemoveServer(name)
}

// Close stops every server and waits for their children to end.
func (h *Host) Close() {
	h.mu.Lock()
	names := make([]string, 0, len(h.servers))
	for n := range h.servers {
		names = append(names, n)
	}
	h.mu.Unlock()
	for _, n := range names {
		h.Stop(n)
	}
	h.wg.Wait()
}

// Status returns every supervised server's state, sorted by name.
func (h *Host) Status() []Status {
	h.mu.Lock()
	ms := make([]*managed, 0, len(h.servers))
	for _, m := range h.servers {
		ms = append(ms, m)
	}
	h.mu.Unlock()
	out := make([]Status, 0, len(ms))
	for _, m := range ms {
		m.mu.Lock()
		st := Status{Name: m.srv.Name, State: m.state, Err: m.err, Restarts: m.restarts}
		if m.conn != nil && m.state == StateUp {
			st.Tools = len(m.conn.Tools())
		}
		m.mu.Unlock()
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Call runs a tool of a server that is up. A server that is down answers
// at once with why, so a dead server never costs a turn its deadline.
func (h *Host) Call(ctx context.Context, server, tool string, args json.RawMessage) (Result, error) {
	h.mu.Lock()
	m := h.servers[server]
	h.mu.Unlock()
	if m == nil {
		return Result{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no MCP server %q is connected", server)
	}
	m.mu.Lock()
	conn, state, why := m.conn, m.state, m.err
	m.mu.Unlock()
	if conn == nil || state != StateUp {
		if why != nil {
			return Result{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "server %s is not available (%v); jarvisbot is reconnecting", server, why)
		}
		return Result{}, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "server %s is still starting", server)
	}
	return conn.Call(ctx, tool, args, h.opt.MaxResult)
}

// Run runs a call of an MCP capability for the agent runtime: the host is
// the runner of every mcp: tool (agents.Runner).
func (h *Host) Run(ctx context.Context, c catalog.Call) (catalog.Output, error) {
	r, err := h.Call(ctx, c.Cap.Server, c.Cap.Tool, c.Args)
	return catalog.Output{Text: r.Text, IsError: r.IsError}, err
}

// Timeout is the deadline the call's server keeps (M2), 0 for a server
// the host does not supervise.
func (h *Host) Timeout(c catalog.Call) time.Duration {
	h.mu.Lock()
	m := h.servers[c.Cap.Server]
	h.mu.Unlock()
	if m == nil {
		return 0
	}
	return m.srv.callTimeout()
}

// set records a server's state, then tells OnState: whoever is told sees
// the new state in Status and Call.
func (h *Host) set(m *managed, state State, conn *Conn, err error) {
	m.mu.Lock()
	m.state, m.conn = state, conn
	if err != nil {
		m.err = err
	}
	if state == StateUp {
		m.err = nil
	}
	m.seen = state
	close(m.moved)
	m.moved = make(chan struct{})
	m.mu.Unlock()
	if h.opt.OnState != nil {
		h.opt.OnState(m.srv, state, err)
	}
}

// WaitStarted waits until none of the named servers is still starting
// (each is up, or its first attempt failed), at most the start deadline
// (DialOptions.InitTimeout) or until ctx ends, and returns the named
// servers' states. A turn that wants a server which is still starting
// waits here instead of answering without its tools. Names the host does
// not supervise are left out.
func (h *Host) WaitStarted(ctx context.Context, names []string) []Status {
	limit := h.opt.Dial.InitTimeout
	if limit <= 0 {
		limit = DefaultInitTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for _, n := range names {
		h.mu.Lock()
		m := h.servers[n]
		h.mu.Unlock()
		for m != nil {
			m.mu.Lock()
			st, moved := m.seen, m.moved
			m.mu.Unlock()
			if st != StateStarting {
				break
			}
			select {
			case <-moved:
			case <-ctx.Done():
				m = nil
			case <-m.done:
				m = nil
			}
		}
	}
	var out []Status
	for _, st := range h.Status() {
		if slices.Contains(names, st.Name) {
			out = append(out, st)
		}
	}
	return out
}

// supervise connects, serves and reconnects until ctx ends.
func (h *Host) supervise(ctx context.Context, m *managed) {
	name := m.srv.Name
	restart := retry.New(h.opt.Clock, retry.Policy{Min: h.opt.MinBackoff, Max: h.opt.MaxBackoff, Healthy: h.opt.MaxBackoff})
	var wait time.Duration
	for {
		conn, err := Dial(ctx, m.srv, h.opt.Dial)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			h.offline(name)
			h.set(m, StateDown, nil, err)
			wait = restart.Next()
			h.log.Warn("MCP server unavailable", "server", name, "err", err, "retry_in", wait)
		} else {
			restart.Up()
			h.up(m, conn)
			err = h.serve(ctx, m, conn)
			if ctx.Err() != nil {
				conn.Close()
				return
			}
			// Tools leave first, then the state says so (OnState), then
			// the session is closed, which may take a moment.
			h.offline(name)
			h.set(m, StateDown, nil, err)
			conn.Close()
			restart.Down() // a session that stayed up restarts after MinBackoff again
			wait = restart.Next()
			h.log.Warn("MCP server went down", "server", name, "err", err, "retry_in", wait)
		}
		if !restart.Wait(ctx, wait) {
			return
		}
		m.mu.Lock()
		m.restarts++
		m.mu.Unlock()
	}
}

// up registers the server's tools as connected.
func (h *Host) up(m *managed, conn *Conn) {
	srv := m.srv
	// Calls work before the tools join the catalog, so that a turn never
	// sees a tool whose call would answer "still starting"; waiters and
	// OnState hear of it after they joined (set, below).
	m.mu.Lock()
	m.state, m.conn, m.err = StateUp, conn, nil
	m.mu.Unlock()
	err := h.cat.SetTools(srv.Name, conn.Tools(), true)
	if err == nil {
		// A restarted server may say something new at initialize; its
		// derived card reads it (C5).
		err = h.cat.UpdateServer(srv.Name, func(cs *catalog.Server) { cs.Instructions = conn.Instructions })
	}
	if jarvisbot.ErrorCode(err) == jarvisbot.ENOTFOUND {
		title := conn.Info.Title
		if title == "" {
			title = conn.Info.Name
		}
		cs := catalog.Server{
			ID: srv.Name, Title: title, Plugin: srv.Plugin, Instructions: conn.Instructions,
			Trusted: srv.Trusted, Connected: true,
		}
		if h.opt.Routing != nil {
			h.opt.Routing(&cs)
		}
		err = h.cat.SetServer(cs, conn.Tools())
	}
	if err != nil {
		h.log.Error("MCP server's tools rejected by the catalog", "server", srv.Name, "err", err)
	}
	h.warnLeftOut(conn)
	h.set(m, StateUp, conn, nil)
	h.log.Info("MCP server up", "server", srv.Name, "transport", conn.Transport, "tools", len(conn.Tools()))
}

// warnLeftOut names every tool of the last listing that was left out.
func (h *Host) warnLeftOut(conn *Conn) {
	for _, l := range conn.LeftOut() {
		h.log.Warn("an MCP server listed a tool jarvisbot cannot use; its other tools work", "server", l.Server, "warning", l.String())
	}
}

// offline takes a server's tools away from every agent at once (M3).
func (h *Host) offline(name string) {
	if err := h.cat.SetConnected(name, false); err != nil && jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
		h.log.Error("marking MCP server offline", "server", name, "err", err)
	}
}

// serve waits on a live session: re-lists on list_changed, pings HTTP
// servers, and returns why the session ended.
func (h *Host) serve(ctx context.Context, m *managed, conn *Conn) error {
	var ping <-chan time.Time
	if conn.Transport != Stdio {
		t := time.NewTicker(h.opt.PingEvery)
		defer t.Stop()
		ping = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-conn.Done():
			return conn.Err()
		case <-conn.Changed():
			if err := conn.Relist(ctx); err != nil {
				h.log.Warn("re-listing MCP tools failed", "server", m.srv.Name, "err", err)
				continue
			}
			if err := h.cat.SetTools(m.srv.Name, conn.Tools(), true); err != nil {
				h.log.Error("MCP server's new tools rejected by the catalog", "server", m.srv.Name, "err", err)
			}
			h.warnLeftOut(conn)
			h.log.Info("MCP tools changed", "server", m.srv.Name, "tools", len(conn.Tools()))
		case <-ping:
			if err := conn.Ping(ctx, conn.pingLimit()); err != nil {
				return err
			}
		}
	}
}
