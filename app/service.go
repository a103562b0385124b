package app

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/agents"
	"github.com/jarvisbot/jarvisbot/agents/approvals"
	"github.com/jarvisbot/jarvisbot/agents/attachments"
	"github.com/jarvisbot/jarvisbot/agents/cliagent"
	"github.com/jarvisbot/jarvisbot/agents/jobs"
	"github.com/jarvisbot/jarvisbot/agents/llm"
	clisession "github.com/jarvisbot/jarvisbot/agents/session"
	"github.com/jarvisbot/jarvisbot/app/assembly"
	"github.com/jarvisbot/jarvisbot/catalog"
	"github.com/jarvisbot/jarvisbot/catalog/clitool"
	"github.com/jarvisbot/jarvisbot/catalog/mcphost"
	"github.com/jarvisbot/jarvisbot/internal/config"
	"github.com/jarvisbot/jarvisbot/plugins/builtins"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/browser"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/memory"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/skillbook"
	"github.com/jarvisbot/jarvisbot/plugins/builtins/wiki"
	"github.com/jarvisbot/jarvisbot/plugins/collection"
	"github.com/jarvisbot/jarvisbot/plugins/signin"
	"github.com/jarvisbot/jarvisbot/scheduler"
	"github.com/jarvisbot/jarvisbot/skills"
	"github.com/jarvisbot/jarvisbot/store"
	"github.com/jarvisbot/jarvisbot/store/sqlstore"
)

// lookup resolves a secret's name: the keyring, then the environment.
// The keyring is opened only when a name needs it.
func (a *Env) Lookup(ctx context.Context, cfg config.Config) func(name string) (string, bool) {
	return func(name string) (string, bool) {
		if kr, err := a.OpenSecrets(cfg); err == nil {
			if v, err := kr.Get(ctx, name); err == nil && v != "" {
				return v, true
			}
		}
		v := a.Getenv(name)
		return v, v != ""
	}
}

// secretOrEnv reads a key from the keyring, else the environment.
func (a *Env) SecretOrEnv(ctx context.Context, cfg config.Config, name string) string {
	v, _ := a.Lookup(ctx, cfg)(name)
	return v
}

// dialOptions are how this installation reaches MCP servers: ${NAME}
// references resolved by lookup, and the start-up deadline of the config.
func (a *Env) DialOptions(ctx context.Context, cfg config.Config) mcphost.DialOptions {
	return mcphost.DialOptions{Lookup: a.Lookup(ctx, cfg), InitTimeout: cmp.Or(cfg.MCPInitTimeout, config.DefaultMCPInitTimeout)}
}

// ProviderSettings is an agent's provider entry over the installation's.
// A chain (provider: as a list) keeps its fallbacks behind an agent's
// single entry, which changes only the primary; an agent's own list is
// its whole chain (see llm.Settings.Over).
func ProviderSettings(cfg config.Config, agentName string) llm.Settings {
	var of func(p config.Provider) llm.Settings
	of = func(p config.Provider) llm.Settings {
		s := llm.Settings{Name: p.Name, Model: p.Model, BaseURL: p.BaseURL, APIKeySecret: p.APIKeySecret,
			MaxTokens: p.MaxTokens, MaxSteps: p.MaxSteps, Timeout: p.Timeout, Command: p.Command, OwnTools: p.OwnTools, Images: p.Images}
		if p.Fallbacks != nil { // a list, even of one: nil is a single entry
			s.Fallbacks = make([]llm.Settings, 0, len(p.Fallbacks))
			for _, f := range p.Fallbacks {
				s.Fallbacks = append(s.Fallbacks, of(f))
			}
		}
		return s
	}
	s := of(cfg.Provider)
	if ag, ok := cfg.Agents[agentName]; ok {
		s = s.Over(of(ag.Provider))
	}
	return s
}

// chooseModel resolves an agent's model (A3) without building its client:
// keys from the keyring or the providers' usual variables
// (ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENAI_BASE_URL).
func (a *Env) ChooseModel(ctx context.Context, cfg config.Config, agentName string) (llm.Choice, error) {
	return llm.Choose(ctx, ProviderSettings(cfg, agentName), llm.Env{
		Getenv: a.Getenv,
		Secret: func(ctx context.Context, name string) string { return a.SecretOrEnv(ctx, cfg, name) },
	})
}

// chooseFor resolves a stored agent's model: the provider the owner gave
// it (agents add --provider) wins over the config and JARVIS_PROVIDER; one
// of another kind than the installation's takes none of its settings.
func (a *Env) ChooseFor(ctx context.Context, cfg config.Config, ag store.Agent) (llm.Choice, error) {
	if ag.Provider == "" {
		return a.ChooseModel(ctx, cfg, ag.Name)
	}
	s := ProviderSettings(cfg, ag.Name)
	if !strings.EqualFold(s.Name, ag.Provider) {
		s = llm.Settings{Name: ag.Provider, MaxTokens: s.MaxTokens, MaxSteps: s.MaxSteps, Timeout: s.Timeout, OwnTools: s.OwnTools}
	}
	return llm.Choose(ctx, s, llm.Env{
		Getenv: func(k string) string {
			if k == "JARVIS_PROVIDER" || k == "JARVIS_MODEL" {
				return "" // the agent's own choice stands
			}
			return a.Getenv(k)
		},
		Secret: func(ctx context.Context, name string) string { return a.SecretOrEnv(ctx, cfg, name) },
	})
}

// modelFor builds an agent's model, when a turn needs it: an API client,
// a chain of them, or a coding CLI that runs the turn itself (M5). A
// chain built here starts on its primary and remembers nothing; the
// running service's turns build theirs on its failovers.
func (a *Env) ModelFor(ctx context.Context, cfg config.Config, ag store.Agent) (agents.Model, error) {
	return a.modelFor(ctx, cfg, ag, nil)
}

func (a *Env) modelFor(ctx context.Context, cfg config.Config, ag store.Agent, fo *failovers) (agents.Model, error) {
	ch, err := a.ChooseFor(ctx, cfg, ag)
	if err != nil {
		return agents.Model{}, err
	}
	if ch.CLI != "" {
		cli, err := cliagent.New(cliagent.Options{Kind: ch.CLI, Command: ch.Command, Getenv: a.Getenv, Environ: a.Environ,
			Dir: filepath.Join(cfg.DataDir, "cli", ch.CLI), MCP: SessionServer, OwnTools: ch.OwnTools, Probes: a.CLIProbes, Logger: a.Logger(cfg)})
		if err != nil {
			return agents.Model{}, err
		}
		return agents.Model{Delegate: cli, MaxSteps: ch.MaxSteps}, nil
	}
	prov, err := fo.of(ch).Build(ch)
	if err != nil {
		return agents.Model{}, err
	}
	return agents.Model{Provider: prov, MaxTokens: ch.MaxTokens, MaxSteps: ch.MaxSteps, Images: ch.Images}, nil
}

// service is everything a running jarvisbot holds: the store, the live
// catalog with its MCP sessions, the approvals engine and the runtime.
type Service struct {
	env       *Env   // what the process gave it
	agent     string // the agent of the chats nothing binds (serve --agent)
	Config    config.Config
	DB        *sqlstore.DB
	Catalog   *catalog.Catalog
	Host      *mcphost.Host
	Approvals *approvals.Engine
	runtime   *agents.Runtime
	SignIn    *signin.Manager
	shipped   *shippedSkills
	// rankers keeps the skills' index from turn to turn while the enabled
	// skills read the same.
	rankers skills.RankerCache
	// pending are the approval requests that outlived the last run.
	pending []store.Approval
	// sched answers /schedule once serve runs the scheduler.
	scheduler *scheduler.Scheduler
	// told holds the plugins whose owner was told their sign-in needs
	// attention; tell tells the owner (the desk's NeedsAttention), once
	// the session has one.
	told sync.Map
	tell func(ctx context.Context, plugin string)
	// failovers keep each chain of providers' health from turn to turn;
	// notice tells the owner, in the main chat, when one switched (the
	// session sets it; until then the log alone says so).
	failovers *failovers
	notice    func(ctx context.Context, text string)
	// paused and pausedBy are pause_all's state (M4), read by the desk
	// before every turn; the store keeps it across restarts.
	pauseMu  sync.Mutex
	Paused   bool
	pausedBy string
	// jobs runs the work apps post (M4); serve starts it.
	Jobs        *jobs.Queue
	jobsStarted bool
	// DashboardLink makes /dashboard's one-time sign-in links once serve
	// has started the dashboard (nil before, or when it is off).
	DashboardLink atomic.Pointer[LinkMaker]
	// servers are the enabled MCP servers, started by connect.
	servers []mcphost.Server
	// known are the servers of servers that start on first use (idle).
	known map[string]bool
	// idleLists are the stored tool lists of the known servers, until
	// Connect has checked that each holds a tool the catalog takes.
	idleLists map[string]string
	log       *slog.Logger
	Warn      io.Writer // where unreadable skills are reported
	// work is the context of what the service spawns; Close ends it and
	// waits for wg.
	work     context.Context
	stopWork context.CancelFunc
	wg       sync.WaitGroup
}

// LinkMaker makes a one-time sign-in link to the dashboard and says how
// long it works. The dashboard owns its links; the service only asks.
type LinkMaker func(ctx context.Context) (link string, ttl time.Duration, err error)

// shippedSkills are the plugin store and the shipped general skills, each
// read once when first needed (the store for a plugin's server at start,
// the general skills and the connected plugins' manuals for the first
// turn): start-up does no work it can defer, and a turn reads no more of
// the store than its skills.
type shippedSkills struct {
	once   sync.Once
	Config config.Config
	Warn   io.Writer
	shop   collection.Collection
	err    error

	shelfOnce  sync.Once
	shelf      *collection.Shelf // the store's manuals, as turns read them
	general    []*skills.Skill
	generalErr error
}

// load reads the whole store: every plugin, checked, with its manual.
func (sh *shippedSkills) load() error {
	sh.once.Do(func() {
		sh.shop, sh.err = collection.Load(sh.Config.DataDir, sh.Warn)
	})
	return sh.err
}

// forTurns are the shipped general skills and the store's manuals, read
// as turns ask for them.
func (sh *shippedSkills) forTurns() ([]*skills.Skill, *collection.Shelf, error) {
	sh.shelfOnce.Do(func() {
		sh.shelf = collection.NewShelf(sh.Config.DataDir, sh.Warn)
		sh.general, sh.generalErr = skills.Shipped()
	})
	return sh.general, sh.shelf, sh.generalErr
}

// connect starts the MCP servers in the background; their tools join the
// catalog as each one answers. serve calls it once its channels are up,
// so that the owner is reachable before any child process starts.
func (s *Service) Connect(ctx context.Context) {
	for _, hs := range s.servers {
		if s.known[hs.Name] {
			continue // with the host, idle, since the service was built
		}
		if err := s.Host.Start(ctx, hs); err != nil {
			s.log.Warn("MCP server not started", "server", hs.Name, "err", err)
		}
	}
	// Every server is with the host now; the stored lists are checked
	// here, after that. A server left idle on a list that holds no tool
	// the catalog takes would wait for a call that can never come: it
	// starts now instead, out of the catalog until it answers, as one with
	// no list does. The check reads the lists without decoding them into
	// the catalog, which waits for a turn (or /mcp) to need their tools.
	lists := s.idleLists
	s.idleLists = nil
	for _, hs := range s.servers {
		if !s.known[hs.Name] || catalog.StoredListTakesATool(lists[hs.Name]) {
			continue
		}
		delete(s.known, hs.Name)
		if err := s.Host.Start(ctx, hs); err != nil {
			s.log.Warn("MCP server not started", "server", hs.Name, "err", err)
		}
	}
}

// spawn runs f in a goroutine that Close waits for; f's context ends when
// Close begins.
func (s *Service) Spawn(f func(ctx context.Context)) {
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
func (s *Service) Close() {
	if s.Approvals != nil {
		s.Approvals.Close()
	}
	s.stopWork()
	s.wg.Wait()
	if s.runtime != nil {
		s.runtime.Close() // a summary being written; the store closes below
	}
	if s.jobsStarted {
		<-s.Jobs.Done()
	}
	if s.Host != nil {
		s.Host.Close()
	}
	if s.SignIn != nil {
		if err := s.SignIn.Close(); err != nil {
			s.log.Error("closing the sign-in listener", "err", err)
		}
	}
	if err := s.DB.Close(); err != nil {
		s.log.Error("closing the store", "err", err)
	}
}

// resume expires the approval requests that outlived the last run and
// timed out meanwhile, and keeps the others in s.pending. It is the first
// thing that can reach out (notify, orphan): call it once everything they
// use is built.
func (s *Service) Resume(ctx context.Context) error {
	var err error
	s.pending, err = s.Approvals.Resume(ctx)
	return err
}

// buildService builds the running service without starting anything: no
// approval expires, no turn runs and no MCP server starts until the caller
// has built what notify and orphan reach and calls resume and connect.
// notify is told of approval requests and decisions (the channels draw
// them); orphan of a decision that no waiting turn took (a request from
// before a restart), whose turn the caller continues.
func (a *Env) BuildService(ctx context.Context, cfg config.Config, log *slog.Logger, notify, orphan func(store.Approval)) (*Service, error) {
	return a.buildService(ctx, cfg, log, notify, orphan, nil)
}

// buildService is BuildService; beside, when set, is called with the store
// as soon as it is open, and runs beside the catalog's assembly: serve
// builds its channels there (a Telegram bot asks the platform who it is),
// so that neither waits for the other before the owner is reachable.
func (a *Env) buildService(ctx context.Context, cfg config.Config, log *slog.Logger, notify, orphan func(store.Approval), beside func(*sqlstore.DB)) (*Service, error) {
	db, c, servers, err := a.openWithCatalog(ctx, cfg, beside)
	if err != nil {
		return nil, err
	}
	s := &Service{env: a, Config: cfg, DB: db, Catalog: c, log: log, Warn: a.Stderr, shipped: &shippedSkills{Config: cfg, Warn: a.Stderr}, known: map[string]bool{}}
	s.work, s.stopWork = context.WithCancel(context.WithoutCancel(ctx))
	s.failovers = newFailovers(a.Clock, s.tellFailover)
	s.SignIn = a.SigninManager(cfg, log)
	s.Host = a.NewHost(ctx, cfg, c, db, log, func(plugin string, err error) {
		if err == nil {
			s.told.Delete(plugin) // answering again: a later expiry is told again
			return
		}
		s.tellAttention(s.work, plugin, err)
	})
	if err := s.planServers(servers); err != nil {
		s.Close()
		return nil, err
	}
	cli, err := clitool.Stored(ctx, db)
	if err != nil {
		s.Close()
		return nil, err
	}
	aopt := approvals.Options{Store: db, TTL: cfg.Approvals.TTL, Approvers: cfg.Approvals.Approvers, Notify: notify, Orphan: orphan, Logger: log}
	if PostgresURL(cfg) != "" {
		// Replicas share the store (ST2): a decision pressed on another
		// replica reaches the turn waiting here within a second, and is
		// carried out once.
		aopt.Watch, aopt.Carrier = time.Second, ReplicaID()
	}
	s.Approvals = approvals.New(aopt)
	s.runtime = a.runtime(ctx, s, cli)
	s.runtime.Notes = db
	s.runtime.Sessions = db // a coding CLI's session ids, per agent and chat (M5)
	// The Overview's turns by outcome and tool calls by tier (W2).
	s.runtime.Observer = a.tally(db, cfg.Location(), log)
	s.Jobs = jobs.New(jobs.Options{Store: db, Turner: s.runtime, Approvals: s.Approvals, Logger: log, Clock: a.Clock,
		Paused: func(context.Context) bool { p, _ := s.pausedNow(); return p },
		Chooser: &jobs.Chooser{Agents: db, Catalog: s.Catalog.View, Skills: s.runtime.Skills, DataDir: cfg.DataDir,
			Named: func(text string) []string {
				if s.shipped.load() != nil {
					return nil
				}
				byName, byWords := s.shipped.shop.Named(text)
				return append(byName, byWords...)
			}}})
	return s, nil
}

// signinManager keeps plugins' sign-ins in the keyring; nil when the
// keyring cannot be opened.
func (a *Env) SigninManager(cfg config.Config, log *slog.Logger) *signin.Manager {
	kr, err := a.OpenSecrets(cfg)
	if err != nil {
		// Without it, plugins that sign in reach their servers with no
		// sign-in and land under Needs attention: say the real cause.
		log.Warn("the keyring cannot be opened, so plugins that sign in go without their sign-in", "err", err)
		return nil
	}
	return signin.NewManager(signin.Options{Keyring: kr, ListenAddr: cfg.SignIn.Listen, PublicBaseURL: cfg.SignIn.PublicBaseURL, Logger: log, LockDir: SigninLockDir(cfg)})
}

// newHost is the MCP host over the catalog: a server it lists again keeps
// the usage card and aliases the catalog was built with. A plugin's server
// whose sign-in needs attention is passed to attention with the error,
// one that answers again with nil.
func (a *Env) NewHost(ctx context.Context, cfg config.Config, c *catalog.Catalog, db *sqlstore.DB, log *slog.Logger, attention func(plugin string, err error)) *mcphost.Host {
	record := signin.Recorder(db, log)
	cards := map[string]catalog.Server{}
	for _, srv := range c.Servers() {
		cards[srv.ID] = srv
	}
	return mcphost.NewHost(c, mcphost.HostOptions{
		Dial:      a.DialOptions(ctx, cfg),
		Logger:    log,
		IdleAfter: cfg.IdleMCP(),
		Clock:     a.Clock, // restarts and idle stops, on the schedule's clock
		OnState: func(srv mcphost.Server, st mcphost.State, err error) {
			record(srv, st, err)
			switch {
			case srv.Plugin == "":
			case st == mcphost.StateUp:
				attention(srv.Plugin, nil)
			case errors.Is(err, signin.ErrNeedsAttention):
				attention(srv.Plugin, err)
			}
		},
		Routing: func(cs *catalog.Server) {
			if prev, ok := cards[cs.ID]; ok {
				cs.Card, cs.Aliases = prev.Card, prev.Aliases
			}
			// The owner may have edited the card since (the dashboard); a
			// card in the config still wins.
			if len(cfg.MCP[cs.ID].Card) == 0 {
				if own, err := db.MCPCards(ctx); err == nil && len(own[cs.ID]) > 0 {
					cs.Card = own[cs.ID]
				}
			}
		},
	})
}

// planServers lists the enabled MCP servers for connect (servers, as the
// catalog was built from them), each hidden from the catalog until it
// answers; a plugin's server that signs in goes through the plugin's
// sign-in.
func (s *Service) planServers(servers []store.MCPServer) error {
	idle := s.Config.IdleMCP() > 0
	for _, srv := range servers {
		if !srv.Enabled {
			continue
		}
		hs := s.HostServer(srv)
		s.servers = append(s.servers, hs)
		// A server whose tools the catalog holds as last listed starts on
		// first use when servers idle: its tools are offered meanwhile,
		// and the call that needs one starts it. Whether the list holds a
		// tool the catalog takes Connect checks after the owner can reach
		// jarvisbot: here a list that names no tool at all is enough to
		// tell.
		if idle && listsTools(srv.Tools) {
			// It is with the host from the start, so /mcp lists it as soon
			// as the owner can ask; starting idle runs nothing.
			s.known[srv.Name] = true
			if s.idleLists == nil {
				s.idleLists = map[string]string{}
			}
			s.idleLists[srv.Name] = srv.Tools
			if err := s.Host.StartIdle(s.work, hs); err != nil {
				s.log.Warn("MCP server not started", "server", srv.Name, "err", err)
			}
			continue
		}
		// Until it answers, a server has no tools; one the catalog does not
		// hold (it has no tools remembered yet) has none to hide.
		if err := s.Catalog.SetConnected(srv.Name, false); err != nil && jarvisbot.ErrorCode(err) != jarvisbot.ENOTFOUND {
			return err
		}
	}
	return nil
}

// listsTools reports whether a stored tool list (valid JSON, as the store
// keeps it) names at least one tool, without decoding it.
func listsTools(raw string) bool {
	rest := strings.TrimLeft(raw, " \t\r\n")
	if len(rest) == 0 || rest[0] != '[' {
		return false
	}
	rest = strings.TrimLeft(rest[1:], " \t\r\n")
	return len(rest) > 0 && rest[0] != ']'
}

// hostServer is a stored server as the host runs it: a plugin's server
// that signs in goes through the plugin's sign-in.
func (s *Service) HostServer(srv store.MCPServer) mcphost.Server {
	hs := mcphost.FromStored(srv)
	if srv.Plugin != "" && s.shipped.load() != nil {
		s.log.Warn("reading the plugin store", "err", s.shipped.err)
	}
	if s.shipped.shop.SignsIn(srv.Plugin) && s.SignIn != nil {
		hs = s.SignIn.Through(hs)
	}
	return hs
}

// runtime is the agent runtime over the service's parts. The model is
// built when a turn needs it, not before.
func (a *Env) runtime(ctx context.Context, s *Service, cli map[string]clitool.Tool) *agents.Runtime {
	return &agents.Runtime{
		Catalog:       s.Catalog.View,
		Store:         s.DB,
		Conversations: s.DB,
		Approvals:     s.Approvals,
		Usage:         appClocked{next: s.DB, now: a.Now},
		Files:         &attachments.Keeper{Dir: filepath.Join(s.Config.DataDir, "files"), Quota: s.Config.Files.QuotaBytes()},
		FileIndex:     s.DB,
		Learner:       learner{s},
		LearnFromAll:  s.Config.Learning.FromAppsAndSchedules,
		Log:           s.log,
		Runners: agents.Runners{
			wiki.ID:    wiki.New(filepath.Join(s.Config.DataDir, "wiki")).IndexWith(s.DB),
			memory.ID:  &memory.Memory{Recall: s.DB, Location: s.Config.Location()},
			browser.ID: assembly.Browser(s.Config),
			skillbook.ID: skillbook.Books(func(agentName string) *skillbook.Book {
				return skillbook.New(skills.AgentDir(s.Config.DataDir, agentName), func(ctx context.Context) ([]*skills.Skill, error) { return s.skillsFor(ctx, agentName) })
			}),
			string(catalog.KindMCP): s.Host,
			string(catalog.KindCLI): clitool.Runner{Tools: cli, Lookup: a.Lookup(ctx, s.Config)},
			string(catalog.KindPlugin): &builtins.Runner{Env: a.BuiltinEnv(ctx, s.Config, s.SignIn), Attention: s.attention,
				Scopes: func(plugin string) []string {
					if s.shipped.load() != nil {
						return nil
					}
					return ScopesOf(s.shipped.shop)[plugin]
				}},
		},
		Servers: s.Host,
		Prefer: func(ctx context.Context, v *catalog.View) (*catalog.Preferences, error) {
			return assembly.Preferences(ctx, s.DB, v)
		},
		Model: func(agentName string) (agents.Model, error) {
			ag, err := s.DB.Agent(ctx, agentName)
			if err != nil {
				return agents.Model{}, err
			}
			return a.modelFor(ctx, s.Config, ag, s.failovers)
		},
		Skills: func(ctx context.Context, agentName string) (*skills.Ranker, error) {
			list, err := s.skillsFor(ctx, agentName)
			if err != nil || len(list) == 0 {
				return nil, err
			}
			return s.rankers.Ranker(list), nil
		},
	}
}

// scheduledEntries are the service's scheduled skills, read from the
// shipped general skills the turns read too: read here at start, they
// are not parsed a second time at the first turn. One that cannot be
// read is read again from the binary, for skills.Enabled to say why.
func (s *Service) scheduledEntries(ctx context.Context, warn io.Writer) ([]scheduler.Entry, error) {
	general, _, err := s.shipped.forTurns()
	if err != nil {
		general = nil
	}
	return scheduledEntries(ctx, s.Config, s.DB, general, warn)
}

// skillsFor are the skills an agent's turn may draw on now.
func (s *Service) skillsFor(ctx context.Context, agentName string) ([]*skills.Skill, error) {
	on, err := collection.Connected(ctx, s.DB, s.Catalog.View())
	if err != nil {
		return nil, err
	}
	general, manuals, err := s.shipped.forTurns()
	if err != nil {
		return nil, err
	}
	sc := skills.Scope{DataDir: s.Config.DataDir, Agent: agentName, General: general, Manuals: manuals, Connected: on}
	list, err := skills.Enabled(ctx, s.DB, sc, s.Warn)
	if err != nil {
		return nil, err
	}
	return skillsWithLearned(ctx, s.DB, list)
}

// logger is the service's slog logger on stderr at the config's level.
func (a *Env) Logger(cfg config.Config) *slog.Logger {
	var lv slog.Level
	err := lv.UnmarshalText([]byte(cfg.LogLevel))
	log := slog.New(slog.NewTextHandler(a.Stderr, &slog.HandlerOptions{Level: lv}))
	if err != nil { // config.Load checks the level; a Config built otherwise may not
		log.Warn("the log level is not one of debug, info, warn, error; logging at info", "log_level", cfg.LogLevel, "err", err)
	}
	return log
}

// SessionServer starts a coding CLI's session MCP server for one turn
// (agents/session): the turn's tools, through the runtime's checks.
func SessionServer(ctx context.Context, t agents.DelegateTurn) (url, token string, stop func(), err error) {
	srv, err := clisession.Start(ctx, t, clisession.Options{})
	if err != nil {
		return "", "", nil, err
	}
	return srv.URL(), srv.Token(), func() { _ = srv.Close() }, nil // the turn is over either way
}
