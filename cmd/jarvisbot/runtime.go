package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/approvals"
	"github.com/jarvisbot/jarvisbot/agents/llm"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/catalog/builtin/skillbook"
	"github.com/jarvisbot/jarvisbot/catalog/builtin/wiki"
	"github.com/jarvisbot/jarvisbot/catalog/clitool"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlite"
)

// secretOrEnv reads a key from the keyring, else the environment.
func (a *app) secretOrEnv(ctx context.Context, cfg config.Config, name string) string {
	if kr, err := a.openSecrets(cfg); err == nil {
		if v, err := kr.Get(ctx, name); err == nil && v != "" {
			return v
		}
	}
	return a.getenv(name)
}

// providerFor resolves an agent's model (A3): the agent's own provider
// entry over the top-level one, JARVIS_PROVIDER and JARVIS_MODEL over
// both, keys from the keyring or the SDKs' variables.
func (a *app) providerFor(ctx context.Context, cfg config.Config, agentName string) (agents.Model, error) {
	p := cfg.Provider
	if ag, ok := cfg.Agents[agentName]; ok {
		o := ag.Provider
		for _, f := range []struct {
			dst *string
			src string
		}{{&p.Name, o.Name}, {&p.Model, o.Model}, {&p.BaseURL, o.BaseURL}, {&p.APIKeySecret, o.APIKeySecret}} {
			if f.src != "" {
				*f.dst = f.src
			}
		}
		if o.MaxTokens > 0 {
			p.MaxTokens = o.MaxTokens
		}
		if o.MaxSteps > 0 {
			p.MaxSteps = o.MaxSteps
		}
		if o.Timeout > 0 {
			p.Timeout = o.Timeout
		}
	}
	if v := a.getenv("JARVIS_PROVIDER"); v != "" {
		p.Name = strings.ToLower(v)
	}
	if v := a.getenv("JARVIS_MODEL"); v != "" {
		p.Model = v
	}
	keyName := map[string]string{"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
	if p.Name == "" {
		switch {
		case a.secretOrEnv(ctx, cfg, "ANTHROPIC_API_KEY") != "":
			p.Name = "anthropic"
		case a.secretOrEnv(ctx, cfg, "OPENAI_API_KEY") != "" || a.getenv("OPENAI_BASE_URL") != "":
			p.Name = "openai"
		default:
			return agents.Model{}, jarvisbot.Errorf(jarvisbot.EINVALID, "no model provider is configured. Set one of: "+
				"ANTHROPIC_API_KEY (or jarvisbot secrets set ANTHROPIC_API_KEY) and JARVIS_MODEL, e.g. claude-sonnet-4-5; "+
				"OPENAI_API_KEY and JARVIS_MODEL, e.g. gpt-4.1; or OPENAI_BASE_URL for Ollama, vLLM or llama.cpp "+
				"(http://localhost:11434/v1) with JARVIS_MODEL. The provider: section of the config does the same")
		}
	}
	if _, ok := keyName[p.Name]; !ok {
		return agents.Model{}, jarvisbot.Errorf(jarvisbot.EINVALID, "JARVIS_PROVIDER=%q: use anthropic or openai", p.Name)
	}
	base := p.BaseURL
	if base == "" {
		base = a.getenv(strings.ToUpper(p.Name) + "_BASE_URL")
	}
	secret := p.APIKeySecret
	if secret == "" {
		secret = keyName[p.Name]
	}
	key := a.secretOrEnv(ctx, cfg, secret)
	prov, err := llm.New(llm.Config{Provider: p.Name, Model: p.Model, BaseURL: base, APIKey: key, Timeout: p.Timeout})
	if err != nil {
		return agents.Model{}, err
	}
	return agents.Model{Provider: prov, MaxTokens: p.MaxTokens, MaxSteps: p.MaxSteps}, nil
}

// service is everything a running jarvisbot holds: the store, the live
// catalog with its MCP sessions, the approvals engine and the runtime.
type service struct {
	cfg     config.Config
	db      *sqlite.DB
	catalog *catalog.Catalog
	host    *mcphost.Host
	engine  *approvals.Engine
	rt      *agents.Runtime
	signin  *signin.Manager
	// pending are the approval requests that outlived the last run.
	pending []store.Approval
	// scheduleList answers /schedule once the scheduler runs.
	scheduleList func(ctx context.Context) string
	// servers are the enabled MCP servers, started by connect.
	servers []mcphost.Server
	log     *slog.Logger
	// work is the context of what the service spawns; Close ends it and
	// waits for wg.
	work     context.Context
	stopWork context.CancelFunc
	wg       sync.WaitGroup
}

// connect starts the MCP servers in the background; their tools join the
// catalog as each one answers. serve calls it once its channels are up,
// so that the owner is reachable before any child process starts.
func (s *service) connect(ctx context.Context) {
	for _, hs := range s.servers {
		if err := s.host.Start(ctx, hs); err != nil {
			s.log.Warn("MCP server not started", "server", hs.Name, "err", err)
		}
	}
}

// spawn runs f in a goroutine that Close waits for; f's context ends when
// Close begins.
func (s *service) spawn(f func(ctx context.Context)) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f(s.work)
	}()
}

// Close stops what the service started, in the order that keeps each part
// from touching one already closed: approval expiries first, then the
// work the service spawned, the MCP servers, the sign-in listener, and the
// store last.
func (s *service) Close() {
	if s.engine != nil {
		s.engine.Close()
	}
	s.stopWork()
	s.wg.Wait()
	if s.host != nil {
		s.host.Close()
	}
	if s.signin != nil {
		if err := s.signin.Close(); err != nil {
			s.log.Error("closing the sign-in listener", "err", err)
		}
	}
	if err := s.db.Close(); err != nil {
		s.log.Error("closing the store", "err", err)
	}
}

// startService builds the service and resumes the approvals that
// outlived the last run, for a command that talks to the runtime directly
// (chat, schedule run): notify is told of approval requests and
// decisions; deliver sends an answer to a chat outside a running turn (a
// turn that was waiting for approval when jarvisbot stopped, continued
// after the owner decided). MCP servers start when the caller calls
// connect.
func (a *app) startService(ctx context.Context, cfg config.Config, log *slog.Logger, notify func(store.Approval), deliver func(chat, text string)) (*service, error) {
	var s *service
	s, err := a.buildService(ctx, cfg, log, notify, func(ap store.Approval) {
		s.spawn(func(ctx context.Context) {
			res, err := s.rt.Continue(ctx, ap)
			text := res.Text
			if err != nil {
				text = fmt.Sprintf("The turn that waited for your decision on %s could not go on: %v", ap.Tool, err)
			}
			if deliver != nil {
				deliver(ap.Chat, text)
			}
		})
	})
	if err != nil {
		return nil, err
	}
	if err := s.resume(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// resume expires the approval requests that outlived the last run and
// timed out meanwhile, and keeps the others in s.pending. It is the first
// thing that can reach out (notify, orphan): call it once everything they
// use is built.
func (s *service) resume(ctx context.Context) error {
	var err error
	s.pending, err = s.engine.Resume(ctx)
	return err
}

// buildService builds the running service without starting anything: no
// approval expires, no turn runs and no MCP server starts until the caller
// has built what notify and orphan reach and calls resume and connect.
// notify is told of approval requests and decisions (the channels draw
// them); orphan of a decision that no waiting turn took (a request from
// before a restart), whose turn the caller continues.
func (a *app) buildService(ctx context.Context, cfg config.Config, log *slog.Logger, notify, orphan func(store.Approval)) (*service, error) {
	c, err := buildCatalog(cfg, "")
	if err != nil {
		return nil, err
	}
	db, err := a.openStoreWith(ctx, cfg, c.View())
	if err != nil {
		return nil, err
	}
	s := &service{cfg: cfg, db: db, catalog: c, log: log}
	s.work, s.stopWork = context.WithCancel(context.WithoutCancel(ctx))
	m := mcpCmd{a: a, cfg: cfg, db: db}
	servers, err := db.MCPServers(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	cards := map[string]catalog.Server{}
	for _, srv := range c.View().Servers() {
		cards[srv.ID] = srv
	}
	// The plugin store and the shipped skills are read once, when first
	// needed (a plugin's server at start, else the first turn): start-up
	// does no work it can defer.
	var (
		storeOnce sync.Once
		shop      map[string]shipped
		general   []*skills.Skill
		storeErr  error
	)
	loadOnce := func() error {
		storeOnce.Do(func() {
			if shop, storeErr = loadStore(cfg, a.stderr); storeErr == nil {
				general, storeErr = skills.Shipped()
			}
		})
		return storeErr
	}
	var mgr *signin.Manager
	if kr, err := a.openSecrets(cfg); err == nil {
		mgr = signin.NewManager(signin.Options{Keyring: kr, ListenAddr: cfg.SignIn.Listen, PublicBaseURL: cfg.SignIn.PublicBaseURL, Logger: log, LockDir: signinLockDir(cfg)})
		s.signin = mgr
	} else {
		// Without it, plugins that sign in reach their servers with no
		// sign-in and land under Needs attention: say the real cause.
		log.Warn("the keyring cannot be opened, so plugins that sign in go without their sign-in", "err", err)
	}
	s.host = mcphost.NewHost(c, mcphost.HostOptions{
		Dial:    mcphost.DialOptions{Lookup: m.lookup(ctx), InitTimeout: initTimeout(a)},
		Logger:  log,
		OnState: pluginStateRecorder(db, log),
		Routing: func(cs *catalog.Server) {
			if prev, ok := cards[cs.ID]; ok {
				cs.Card, cs.Aliases = prev.Card, prev.Aliases
			}
		},
	})
	for _, srv := range servers {
		if !srv.Enabled {
			continue
		}
		// Until it answers, a server has no tools; one the catalog does not
		// hold (it has no tools remembered yet) has none to hide.
		if err := c.SetConnected(srv.Name, false); err != nil && jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
			s.Close()
			return nil, err
		}
		hs := hostServer(srv)
		if srv.Plugin != "" && loadOnce() != nil {
			log.Warn("reading the plugin store", "err", storeErr)
		}
		if sp, ok := shop[srv.Plugin]; ok && needsSignIn(sp.plugin) && mgr != nil {
			hs.Client = &http.Client{Transport: mgr.Transport(srv.Plugin, nil)}
		}
		s.servers = append(s.servers, hs)
	}
	cli, err := db.CLITools(ctx)
	if err != nil {
		s.Close()
		return nil, err
	}
	tools := map[string]clitool.Tool{}
	for _, t := range cli {
		tools[t.Name] = cliTool(t)
	}
	s.engine = approvals.New(approvals.Options{Store: db, TTL: cfg.Approvals.TTL, Approvers: cfg.Approvals.Approvers, Notify: notify, Orphan: orphan, Logger: log})
	skillsFor := func(ctx context.Context, agentName string) ([]*skills.Skill, error) {
		on, err := connectedPlugins(ctx, db, c.View())
		if err != nil {
			return nil, err
		}
		if err := loadOnce(); err != nil {
			return nil, err
		}
		return enabledSkills(ctx, cfg, db, skillScope{agent: agentName, connected: on, shop: shop, general: general}, a.stderr)
	}
	s.rt = &agents.Runtime{
		Catalog:   c.View,
		Store:     db,
		Approvals: s.engine,
		Log:       log,
		Runners: agents.Runners{
			wiki.ID: wiki.New(filepath.Join(cfg.DataDir, "wiki")),
			skillbook.ID: skillbook.Books(func(agentName string) *skillbook.Book {
				return skillbook.New(agentSkillsDir(cfg, agentName), func(ctx context.Context) ([]*skills.Skill, error) { return skillsFor(ctx, agentName) })
			}),
			string(catalog.KindMCP): s.host,
			string(catalog.KindCLI): clitool.Runner{Tools: tools, Lookup: clitool.Lookup(m.lookup(ctx))},
		},
		Servers: s.host,
		Model:   func(agentName string) (agents.Model, error) { return a.providerFor(ctx, cfg, agentName) },
		Skills: func(ctx context.Context, agentName string) (*skills.Ranker, error) {
			list, err := skillsFor(ctx, agentName)
			if err != nil || len(list) == 0 {
				return nil, err
			}
			return skills.NewRanker(list), nil
		},
	}
	return s, nil
}

// pluginStates is what recording a plugin's connection needs of the store.
type pluginStates interface {
	SetPluginState(ctx context.Context, name string, state store.PluginState) error
}

// pluginStateRecorder returns the host's OnState callback, which keeps a
// plugin's state in the store in step with its server: connected once it
// answers; needs attention (P4) when its sign-in expired or was revoked,
// when its tools are gone (the server is down) and the owner is told once
// until a renewed sign-in brings it back at the next retry.
//
// The commands outside the service (catalog list, route, plugins list)
// read that state, so a write the store refuses is logged with the plugin
// and what those commands will show meanwhile; the next change of the
// server's state writes it again.
func pluginStateRecorder(db pluginStates, log *slog.Logger) func(mcphost.Server, mcphost.State, error) {
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
		case errors.Is(err, signin.ErrNeedsAttention):
			record(srv, store.PluginNeedsAttention, "catalog list, route and plugins list may still show it as connected")
			if _, dup := told.LoadOrStore(srv.Plugin, true); !dup {
				log.Warn("a plugin's sign-in needs attention; its tools are off until it is renewed", "plugin", srv.Plugin, "renew", "jarvisbot plugins signin "+srv.Plugin)
			}
		}
	}
}

// logger is the service's slog logger on stderr at the config's level.
func (a *app) logger(cfg config.Config) *slog.Logger {
	var lv slog.Level
	err := lv.UnmarshalText([]byte(cfg.LogLevel))
	log := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: lv}))
	if err != nil { // config.Load checks the level; a Config built otherwise may not
		log.Warn("the log level is not one of debug, info, warn, error; logging at info", "log_level", cfg.LogLevel, "err", err)
	}
	return log
}
