package mcphost

import (
	"context"
	"encoding/json"
	"errors"
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
	// IdleAfter ends a session that no call used for this long: the child
	// process exits (an HTTP server's stream closes), its tools stay in
	// the catalog, and the next call or turn that wants it starts it
	// again. A server begun with StartIdle waits that way from the start.
	// An MCP server is a process of its own, often a Node or Python
	// runtime of 30-100 MB; most of them are used a few times a day. 0
	// keeps every session open.
	IdleAfter time.Duration
}

// State is where a supervised server stands.
type State string

// The states.
const (
	StateStarting State = "starting"
	StateUp       State = "up"
	StateDown     State = "down" // crashed or unreachable; a restart is pending
	// StateIdle: not running, its tools known; it starts when a call or a
	// turn needs it (HostOptions.IdleAfter).
	StateIdle State = "idle"
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
	// launch starts the server's supervisor, once (launched): when the
	// server starts, or, for one that starts idle, at its first poke, so
	// that a server no request has wanted holds no goroutine. Stop spends
	// the once on closing done when no supervisor ran.
	launched sync.Once
	launch   func()

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
	// wake asks an idle server's supervisor to start it (capacity 1);
	// inflight counts the calls running on its session, lastUse is when
	// the last one ended: the session idles out only when none runs.
	wake     chan struct{}
	inflight int
	lastUse  time.Time
}

// poke asks an idle server to start; it never blocks.
func (m *managed) poke() {
	m.launched.Do(m.launch)
	select {
	case m.wake <- struct{}{}:
	default:
	}
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
	return h.start(ctx, srv, StateStarting)
}

// StartIdle begins supervising a server whose tools the catalog already
// holds (as last listed) without starting it: the first call or turn
// that wants it does (Warm, WaitStarted, Call), and it idles out again
// after HostOptions.IdleAfter. Without IdleAfter it is Start.
func (h *Host) StartIdle(ctx context.Context, srv Server) error {
	if h.opt.IdleAfter <= 0 {
		return h.Start(ctx, srv)
	}
	return h.start(ctx, srv, StateIdle)
}

func (h *Host) start(ctx context.Context, srv Server, first State) error {
	if err := srv.Check(); err != nil {
		return err
	}
	h.Stop(srv.Name)
	ctx, cancel := context.WithCancel(ctx)
	m := &managed{srv: srv, cancel: cancel, done: make(chan struct{}), state: first, seen: first, moved: make(chan struct{}),
		wake: make(chan struct{}, 1)}
	m.launch = func() {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			defer close(m.done)
			h.supervise(ctx, m)
		}()
	}
	h.mu.Lock()
	h.servers[srv.Name] = m
	h.mu.Unlock()
	if first != StateIdle {
		m.launched.Do(m.launch)
	}
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
	m.launched.Do(func() { close(m.done) }) // never woken: no supervisor ran
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
		switch {
		case m.conn != nil && m.state == StateUp:
			st.Tools = len(m.conn.Tools())
		case m.state == StateIdle:
			st.Tools = -1 // as last listed, from the catalog below
		}
		m.mu.Unlock()
		if st.Tools < 0 {
			st.Tools = h.cat.Tools(st.Name)
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Call runs a tool of a server that is up, or of one starting or idle,
// which it waits for or starts (at most the start deadline). A server
// that is down answers at once with why, so a dead server never costs a
// turn its deadline.
func (h *Host) Call(ctx context.Context, server, tool string, args json.RawMessage) (Result, error) {
	h.mu.Lock()
	m := h.servers[server]
	h.mu.Unlock()
	if m == nil {
		return Result{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND, "no MCP server %q is connected", server)
	}
	conn, err := h.acquire(ctx, m)
	if err != nil {
		return Result{}, err
	}
	defer h.release(m)
	return conn.Call(ctx, tool, args, h.opt.MaxResult)
}

// acquire returns the session of a server that is up, counting a call on
// it; an idle server is started first, and a starting one waited for, at
// most the start deadline.
func (h *Host) acquire(ctx context.Context, m *managed) (*Conn, error) {
	var wait context.Context
	for {
		m.mu.Lock()
		conn, state, why, moved := m.conn, m.state, m.err, m.moved
		if conn != nil && state == StateUp {
			m.inflight++
			m.mu.Unlock()
			return conn, nil
		}
		m.mu.Unlock()
		switch state {
		case StateIdle:
			m.poke()
		case StateStarting:
		default:
			if why != nil {
				return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "server %s is not available (%v); jarvisbot is reconnecting", m.srv.Name, why)
			}
			return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "server %s is not available; jarvisbot is reconnecting", m.srv.Name)
		}
		if wait == nil {
			var cancel context.CancelFunc
			wait, cancel = context.WithTimeout(ctx, h.initTimeout())
			defer cancel()
		}
		select {
		case <-moved:
		case <-m.done:
			return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "server %s was switched off", m.srv.Name)
		case <-wait.Done():
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "server %s did not start within %s", m.srv.Name, h.initTimeout())
		}
	}
}

// release ends a call that acquire counted.
func (h *Host) release(m *managed) {
	m.mu.Lock()
	m.inflight--
	m.lastUse = h.opt.Clock.Now()
	m.mu.Unlock()
}

// Warm starts those of the named servers that are idle, without waiting:
// a turn that was offered a server's tools warms it while the model
// thinks, so its first call finds it up. Other names are left alone.
func (h *Host) Warm(names []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, n := range names {
		if m := h.servers[n]; m != nil {
			m.mu.Lock()
			idle := m.state == StateIdle
			m.mu.Unlock()
			if idle {
				m.poke()
			}
		}
	}
}

func (h *Host) initTimeout() time.Duration {
	if h.opt.Dial.InitTimeout > 0 {
		return h.opt.Dial.InitTimeout
	}
	return DefaultInitTimeout
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
// waits here instead of answering without its tools; an idle one is
// started and waited for. Names the host does not supervise are left out.
func (h *Host) WaitStarted(ctx context.Context, names []string) []Status {
	ctx, cancel := context.WithTimeout(ctx, h.initTimeout())
	defer cancel()
	for _, n := range names {
		h.mu.Lock()
		m := h.servers[n]
		h.mu.Unlock()
		for m != nil {
			m.mu.Lock()
			st, moved := m.seen, m.moved
			m.mu.Unlock()
			if st == StateIdle {
				m.poke()
			} else if st != StateStarting {
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
		if h.idle(m) {
			select {
			case <-ctx.Done():
				return
			case <-m.wake:
			}
			h.log.Info("starting an idle MCP server for a request", "server", name)
			h.set(m, StateStarting, nil, nil)
		}
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
			if errors.Is(err, errIdle) {
				// Its tools stay: the next call starts it again.
				h.set(m, StateIdle, nil, nil)
				conn.Close()
				h.log.Info("MCP server idle: stopped until a request needs it", "server", name, "idle_after", h.opt.IdleAfter)
				continue
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

// idle reports whether the server waits to be woken.
func (h *Host) idle(m *managed) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state == StateIdle
}

// errIdle ends a session that no call used for HostOptions.IdleAfter.
var errIdle = errors.New("idle")

// idleLeft is how long the session must stay before it may idle out; 0
// means now, and then the server is marked idle at once, under the same
// lock as acquire counts calls, so that no call starts on a session
// about to close: a call after it starts the server again.
func (h *Host) idleLeft(m *managed) time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.inflight > 0 {
		return h.opt.IdleAfter
	}
	if left := h.opt.IdleAfter - h.opt.Clock.Now().Sub(m.lastUse); left > 0 {
		return left
	}
	m.state, m.conn = StateIdle, nil
	return 0
}

// up registers the server's tools as connected.
func (h *Host) up(m *managed, conn *Conn) {
	srv := m.srv
	// Calls work before the tools join the catalog, so that a turn never
	// sees a tool whose call would answer "still starting"; waiters and
	// OnState hear of it after they joined (set, below).
	m.mu.Lock()
	m.state, m.conn, m.err = StateUp, conn, nil
	m.lastUse = h.opt.Clock.Now()
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
	// The idle timer runs on the host's clock; when it fires early (a
	// call ran meanwhile), it is set again for what is left.
	var idle chan struct{}
	stop := func() bool { return false }
	defer func() { stop() }()
	if h.opt.IdleAfter > 0 {
		idle = make(chan struct{}, 1)
		stop = h.opt.Clock.AfterFunc(h.opt.IdleAfter, func() { idle <- struct{}{} })
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
		case <-idle:
			left := h.idleLeft(m)
			if left == 0 {
				return errIdle
			}
			stop = h.opt.Clock.AfterFunc(left, func() { idle <- struct{}{} })
		}
	}
}
