// Package config reads jarvisbot's settings: one YAML file (written by
// `jarvisbot init`, see Template) and a few environment variables that win
// over it, so a service manager can change the data directory, log level or
// keyring backend without editing the file.
//
// Load returns a Config whose paths are absolute and whose values have been
// checked; packages further down receive the fields they need and never
// read the environment themselves.
//
// It serves ST1, X3 (no secret in the file) and W1; app maps it onto each domain package's own options.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/names"
	"github.com/jarvisbot/jarvisbot/internal/sizelimit"
)

// Environment variables Load reads.
const (
	EnvConfig               = "JARVIS_CONFIG"                        // config file path
	EnvDataDir              = "JARVIS_DATA_DIR"                      // overrides data_dir
	EnvLogLevel             = "JARVIS_LOG_LEVEL"                     // overrides log_level
	EnvShutdownTimeout      = "JARVIS_SHUTDOWN_TIMEOUT"              // overrides shutdown_timeout
	EnvKeyringBackend       = "JARVIS_KEYRING_BACKEND"               // overrides keyring.backend
	EnvMCPInitTimeout       = "JARVIS_MCP_INIT_TIMEOUT"              // sets MCPInitTimeout
	EnvMCPIdleTimeout       = "JARVIS_MCP_IDLE_TIMEOUT"              // overrides mcp_idle_timeout
	EnvTimezone             = "JARVIS_TIMEZONE"                      // overrides timezone
	EnvBrowserEngine        = "JARVIS_BROWSER_ENGINE"                // overrides browser.engine
	EnvBrowserAllow         = "JARVIS_BROWSER_ALLOW"                 // overrides browser.allow (comma-separated)
	EnvMCPListen            = "JARVIS_MCP_LISTEN"                    // overrides mcp_server.listen
	EnvTranscriptionBaseURL = "JARVIS_TRANSCRIPTION_BASE_URL"        // overrides transcription.base_url
	EnvTranscriptionModel   = "JARVIS_TRANSCRIPTION_MODEL"           // overrides transcription.model
	EnvVoiceReply           = "JARVIS_VOICE_REPLY"                   // overrides voice.reply
	EnvVoiceBaseURL         = "JARVIS_VOICE_BASE_URL"                // overrides voice.base_url
	EnvVoiceModel           = "JARVIS_VOICE_MODEL"                   // overrides voice.model
	EnvVoiceName            = "JARVIS_VOICE_NAME"                    // overrides voice.voice
	EnvWebListen            = "JARVIS_WEB_LISTEN"                    // overrides web.listen
	EnvWebURL               = "JARVIS_WEB_URL"                       // overrides web.url
	EnvDatabaseURL          = "JARVIS_DATABASE_URL"                  // overrides store (may hold the password)
	EnvWebMetrics           = "JARVIS_WEB_METRICS"                   // overrides web.metrics (1 or 0)
	EnvWebBehindProxy       = "JARVIS_WEB_BEHIND_PROXY"              // overrides web.behind_proxy (1 or 0)
	EnvWebhookListen        = "JARVIS_TELEGRAM_WEBHOOK_LISTEN"       // overrides telegram.webhook_listen
	EnvWebhookBehindProxy   = "JARVIS_TELEGRAM_WEBHOOK_BEHIND_PROXY" // overrides telegram.webhook_behind_proxy (1 or 0)
)

// DefaultWebhookListen is where serve serves Telegram's webhook POSTs
// unless telegram.webhook_listen says otherwise.
const DefaultWebhookListen = "127.0.0.1:8443"

// DefaultMCPListen is where serve listens for apps over MCP unless
// mcp_server.listen says otherwise.
const DefaultMCPListen = "127.0.0.1:8765"

// SecretTranscriptionKey is the keyring name (or environment variable) of
// the transcription endpoint's key unless transcription.api_key_secret
// names another.
const SecretTranscriptionKey = "JARVIS_TRANSCRIPTION_API_KEY"

// DefaultWebListen is where serve serves the dashboard unless web.listen
// says otherwise.
const DefaultWebListen = "127.0.0.1:8780"

// The keyring names (or environment variables) of the OAuth clients the
// owner registers once for the built-in plugins (P6).
const (
	SecretGoogleClientID     = "GOOGLE_OAUTH_CLIENT_ID"
	SecretGoogleClientSecret = "GOOGLE_OAUTH_CLIENT_SECRET"
	SecretSpotifyClientID    = "SPOTIFY_CLIENT_ID"
)

// maxFileSize bounds what Load reads: a config file is a few kilobytes, and
// anything far larger is a wrong path, not a config.
const maxFileSize = 1 << 20

// Config is the whole configuration.
type Config struct {
	DataDir string `yaml:"data_dir"` // "" = default
	// Store is the PostgreSQL database the store lives in
	// (postgres://USER@HOST:5432/DATABASE), for replicas sharing one
	// store (ST2); "" is the SQLite file in the data directory (ST1).
	// JARVIS_DATABASE_URL wins, and is where a password may go: the file
	// refuses one.
	Store    string               `yaml:"store"`
	LogLevel string               `yaml:"log_level"` // debug|info|warn|error, default info
	Keyring  Keyring              `yaml:"keyring"`
	Agents   map[string]Agent     `yaml:"agents"` // seeds agents by name
	MCP      map[string]MCPServer `yaml:"mcp"`    // per MCP server routing data
	Tiers    map[string]string    `yaml:"tiers"`  // capability id -> safe|monitor|ask (owner overrides)
	// Provider is the model every agent uses unless its own entry says
	// otherwise (A3).
	Provider Provider `yaml:"provider"`
	// Prices are what models cost, in US dollars per million tokens, by
	// model name: an entry replaces the shipped price of that model or adds
	// one (A5).
	Prices    map[string]Price `yaml:"prices"`
	Approvals Approvals        `yaml:"approvals"`
	SignIn    SignIn           `yaml:"signin"`
	Telegram  Telegram         `yaml:"telegram"`
	Discord   Discord          `yaml:"discord"`
	Browser   Browser          `yaml:"browser"`
	MCPServer MCPListen        `yaml:"mcp_server"`
	Web       Web              `yaml:"web"`
	// Transcription and Voice are voice notes in and spoken answers out
	// (V1).
	Transcription Transcription `yaml:"transcription"`
	Voice         Voice         `yaml:"voice"`
	// Files are the photos and documents the owner sends (CH4), kept in
	// the data directory.
	Files Files `yaml:"files"`
	// Learning is what teaches the gate the owner's words (C9).
	Learning Learning `yaml:"learning"`
	// Budgets bound what model calls spend, per day and month, for the
	// whole installation and per agent (A5; budgets.go).
	Budgets Budgets `yaml:"budgets"`
	// Timezone is the owner's IANA time zone ("Europe/Berlin"): built-in
	// plugins read and show times in it. "" means the system's (TZ);
	// JARVIS_TIMEZONE wins.
	Timezone string `yaml:"timezone"`
	// ShutdownTimeout is how long serve lets turns in flight finish when it
	// stops (end of console input, SIGINT, SIGTERM); turns still running
	// then are stopped and retried after the restart. 0 means
	// DefaultShutdownTimeout; JARVIS_SHUTDOWN_TIMEOUT wins.
	ShutdownTimeout time.Duration `yaml:"shutdown_timeout"`
	// MCPInitTimeout bounds an MCP server's start, initialize and tool
	// list; only JARVIS_MCP_INIT_TIMEOUT sets it. 0 means
	// DefaultMCPInitTimeout.
	MCPInitTimeout time.Duration `yaml:"-"`
	// MCPIdleTimeout is how long an MCP server runs with no tool call
	// before serve stops it; its tools stay offered, and the next request
	// that wants them starts it again (a server listed before starts that
	// way, on first use). 0 keeps every server running from the start;
	// nil means DefaultMCPIdleTimeout; JARVIS_MCP_IDLE_TIMEOUT wins.
	MCPIdleTimeout *time.Duration `yaml:"mcp_idle_timeout"`
	Path           string         `yaml:"-"` // file loaded, "" if none
}

// Learning says which turns may teach the gate: the owner's own always;
// those of apps (the MCP surface) and scheduled runs only when allowed,
// since their words are not the owner's.
type Learning struct {
	FromAppsAndSchedules bool `yaml:"from_apps_and_schedules"`
}

// Files bounds the photos and documents kept per chat under
// DATADIR/files.
type Files struct {
	// QuotaMB is the most each chat's folder holds, in megabytes; the
	// oldest files are dropped first. 0 means DefaultFilesQuotaMB; a
	// negative value keeps none.
	QuotaMB int `yaml:"quota_mb"`
}

// DefaultFilesQuotaMB is Files.QuotaMB when the file sets none.
const DefaultFilesQuotaMB = 200

// QuotaBytes is the per-chat quota in bytes; 0 keeps nothing.
func (f Files) QuotaBytes() int64 {
	switch {
	case f.QuotaMB < 0:
		return 0
	case f.QuotaMB == 0:
		return DefaultFilesQuotaMB << 20
	}
	return int64(f.QuotaMB) << 20
}

// DefaultShutdownTimeout is ShutdownTimeout when neither the file nor the
// environment sets it.
const DefaultShutdownTimeout = 30 * time.Second

// DefaultMCPIdleTimeout is MCPIdleTimeout when neither the file nor the
// environment sets it: long enough that a conversation keeps its servers,
// short enough that a server used in the morning does not hold its
// memory all day.
const DefaultMCPIdleTimeout = 10 * time.Minute

// IdleMCP is how long an MCP server may idle before serve stops it; 0
// keeps every server running.
func (c Config) IdleMCP() time.Duration {
	if c.MCPIdleTimeout == nil {
		return DefaultMCPIdleTimeout
	}
	return *c.MCPIdleTimeout
}

// DefaultMCPInitTimeout is MCPInitTimeout when the environment does not
// set it: generous, since npx may download a server's package on first use.
const DefaultMCPInitTimeout = 60 * time.Second

// Provider selects an LLM (A3). Keys never go here: they come from the
// keyring (api_key_secret names the secret) or the SDKs' variables.
type Provider struct {
	Name         string        `yaml:"name"`           // anthropic | openai | claude-code | codex ("" = from the environment)
	Model        string        `yaml:"model"`          // e.g. claude-sonnet-4-5, gpt-4.1, llama3.1 (Ollama)
	BaseURL      string        `yaml:"base_url"`       // an OpenAI-compatible endpoint: Ollama, vLLM, OpenRouter, llama.cpp
	APIKeySecret string        `yaml:"api_key_secret"` // keyring name of the key
	MaxTokens    int           `yaml:"max_tokens"`     // per answer, default 4096
	Timeout      time.Duration `yaml:"timeout"`        // per model call, default 2m
	MaxSteps     int           `yaml:"max_steps"`      // tool-use steps per turn, default 12
	// Command is the claude or codex CLI when it is not on PATH (M5).
	Command string `yaml:"command"`
	// OwnTools lets a coding CLI use its own shell, file and web tools,
	// each use decided by jarvisbot's approvals (claude-code only; off by
	// default: jarvisbot's tools only).
	OwnTools bool `yaml:"own_tools"`
	// Images says whether the model takes images (photos the owner
	// sends, CH4); nil means known by the model's family (Claude, GPT-4o,
	// GPT-4.1, GPT-5 do; an unknown OpenAI-compatible model does not).
	Images *bool `yaml:"images"`
	// Fallbacks are the entries after the first when provider: is a list
	// (failover, A3): primary first, then each fallback in order, tried
	// when the one before is busy, down or does not answer in time. Only
	// API providers chain; a coding CLI is its own model.
	Fallbacks []Provider `yaml:"-"`
}

// UnmarshalYAML reads provider: as one mapping, as it always was, or as
// a list of them: the chain, primary first. Each entry's keys are checked
// as strictly as the rest of the file.
func (p *Provider) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.MappingNode:
		return p.decodeEntry(n)
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			return typeError(n, "provider is an empty list: give the primary provider first, then its fallbacks, or leave provider out")
		}
		var chain []Provider
		var errs []string
		for _, item := range n.Content {
			var e Provider
			if item.Kind != yaml.MappingNode {
				errs = append(errs, fmt.Sprintf("line %d: an entry of the provider list is one provider (name:, model:, …), not %s", item.Line, kindName(item)))
				continue
			}
			if err := e.decodeEntry(item); err != nil {
				var te *yaml.TypeError
				if !errors.As(err, &te) {
					return err
				}
				errs = append(errs, te.Errors...)
			}
			chain = append(chain, e)
		}
		if len(errs) > 0 {
			return &yaml.TypeError{Errors: errs}
		}
		*p = chain[0]
		p.Fallbacks = chain[1:]
		return nil
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil
		}
	}
	return typeError(n, "provider is "+kindName(n)+": give one provider (name:, model:, …) or a list of them, primary first")
}

// decodeEntry decodes one provider mapping, refusing unknown keys in the
// words the decoder uses for the rest of the file (see yamlError).
func (p *Provider) decodeEntry(n *yaml.Node) error {
	known := yamlKeys(reflect.TypeFor[Provider]())
	var errs []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; !slices.Contains(known, k.Value) {
			errs = append(errs, fmt.Sprintf("line %d: field %s not found in type config.Provider", k.Line, k.Value))
		}
	}
	if len(errs) > 0 {
		return &yaml.TypeError{Errors: errs}
	}
	type plain Provider // without this method, so the mapping decodes field by field
	return n.Decode((*plain)(p))
}

func typeError(n *yaml.Node, msg string) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %s", n.Line, msg)}}
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("the value %q", n.Value)
	}
	return "not a mapping"
}

// Price is one model's price per million tokens, in US dollars.
type Price struct {
	Input      float64 `yaml:"input"`
	Output     float64 `yaml:"output"`
	CacheRead  float64 `yaml:"cache_read"`
	CacheWrite float64 `yaml:"cache_write"`
}

// Telegram configures the Telegram channel; its token comes from the
// keyring or TELEGRAM_BOT_TOKEN, never from here.
type Telegram struct {
	// Owners are Telegram user ids; JARVIS_TELEGRAM_OWNERS (comma-separated)
	// wins. None means: the first contact pairs with a one-time code.
	Owners []string `yaml:"owners"`
	// APIEndpoint is a self-hosted Bot API server, "http://host:port/bot%s/%s";
	// JARVIS_TELEGRAM_API_ENDPOINT wins.
	APIEndpoint string `yaml:"api_endpoint"`
	// WebhookURL switches from long polling to a webhook: the public https
	// address Telegram posts updates to (JARVIS_TELEGRAM_WEBHOOK_URL wins);
	// WebhookListen is the local address that serves it (default
	// 127.0.0.1:8443, behind your TLS proxy); JARVIS_TELEGRAM_WEBHOOK_LISTEN
	// wins. Replicas behind one balancer share the URL, each its listener.
	WebhookURL    string `yaml:"webhook_url"`
	WebhookListen string `yaml:"webhook_listen"`
	// Beyond loopback the listener needs WebhookTLSCert and WebhookTLSKey,
	// or WebhookBehindProxy when a reverse proxy on a private network
	// terminates TLS in front (JARVIS_TELEGRAM_WEBHOOK_BEHIND_PROXY wins):
	// every POST carries the webhook's secret token, as the web and MCP
	// listeners' requests carry a cookie or a key.
	WebhookTLSCert     string `yaml:"webhook_tls_cert"`
	WebhookTLSKey      string `yaml:"webhook_tls_key"`
	WebhookBehindProxy bool   `yaml:"webhook_behind_proxy"`
}

// WebhookAddr is the webhook listener's address: DefaultWebhookListen
// when webhook_listen is empty.
func (t Telegram) WebhookAddr() string {
	if t.WebhookListen == "" {
		return DefaultWebhookListen
	}
	return t.WebhookListen
}

// check refuses a webhook URL that is not https (Telegram posts only to
// https, and an http:// address would put the secret token in clear on
// the way), and a listener beyond loopback without TLS or a proxy, as for
// the dashboard. Without a webhook URL the listener does not exist.
func (t Telegram) check() error {
	if t.WebhookURL == "" {
		return nil
	}
	u, err := url.Parse(t.WebhookURL)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("webhook_url %q is not an https:// address: Telegram posts updates only to https; give the public https address of your TLS proxy, such as https://jarvis.example.org/telegram", t.WebhookURL)
	}
	if t.WebhookListen == "off" {
		return fmt.Errorf("webhook_listen cannot be off while webhook_url is set: unset webhook_url to receive by long polling")
	}
	err = checkListen("webhook_", t.WebhookListen, DefaultWebhookListen, t.WebhookTLSCert, t.WebhookTLSKey, t.WebhookBehindProxy)
	if errors.Is(err, errClearBeyondLoopback) {
		return fmt.Errorf("%w (or set webhook_behind_proxy, or %s=1, when a reverse proxy on a private network, such as a container's, terminates TLS)", err, EnvWebhookBehindProxy)
	}
	return err
}

// Discord configures the Discord channel; its token comes from the keyring
// or DISCORD_BOT_TOKEN.
type Discord struct {
	Owners []string `yaml:"owners"` // user ids; JARVIS_DISCORD_OWNERS wins
	// APIBase replaces Discord's API base for REST and gateway discovery
	// (a rate-limit proxy); JARVIS_DISCORD_API_BASE wins.
	APIBase string `yaml:"api_base"`
	// Shards is how many gateway sessions the bot's guilds are spread
	// over (Discord's sharding; default 1). Replicas on one store share
	// them out, one session per shard at a time (ST2);
	// JARVIS_DISCORD_SHARDS wins.
	Shards int `yaml:"shards"`
}

// maxShards bounds discord.shards: far more than an owner's bot needs, a
// typo's guard.
const maxShards = 128

// SignIn configures where a plugin's OAuth sign-in returns (P3).
type SignIn struct {
	// Listen is the loopback address of the callback listener, default
	// 127.0.0.1:0 (any free port).
	Listen string `yaml:"listen"`
	// PublicBaseURL, for a jarvisbot on a server, is its https address;
	// the sign-in then returns to PUBLIC_BASE_URL/oauth/callback.
	// JARVIS_PUBLIC_URL wins.
	PublicBaseURL string `yaml:"public_base_url"`
	// Google is the OAuth client the owner created for Google Calendar,
	// Gmail and Google Drive.
	Google OAuthClient `yaml:"google"`
	// Spotify is the owner's Spotify app (a public client: an id only).
	Spotify OAuthClient `yaml:"spotify"`
}

// OAuthClient is an OAuth client the owner registered at a provider that
// has no dynamic registration. Its secret stays in the keyring; the URLs
// move the provider (a test's fake, a proxy) and default to the real one.
type OAuthClient struct {
	ClientID string `yaml:"client_id"` // else the keyring or environment (GOOGLE_OAUTH_CLIENT_ID, SPOTIFY_CLIENT_ID)
	// ClientSecretSecret names the client secret's keyring entry, default
	// GOOGLE_OAUTH_CLIENT_SECRET.
	ClientSecretSecret string `yaml:"client_secret_secret"`
	// ClientSecret is refused: a secret never sits in the config file.
	ClientSecret string `yaml:"client_secret"`
	AuthURL      string `yaml:"auth_url"`
	TokenURL     string `yaml:"token_url"`
	// APIEndpoint is the root the provider's APIs hang below.
	APIEndpoint string `yaml:"api_endpoint"`
}

// MCPListen configures jarvisbot's own MCP server for other apps (M4).
type MCPListen struct {
	// Listen is the address of the streamable HTTP endpoint (/mcp):
	// DefaultMCPListen when empty, "off" for none. An address beyond
	// loopback needs TLSCert and TLSKey (or keep it on loopback behind a
	// reverse proxy that terminates TLS).
	Listen  string `yaml:"listen"`
	TLSCert string `yaml:"tls_cert"`
	TLSKey  string `yaml:"tls_key"`
}

// Transcription is where voice notes are turned into text (V1): an
// OpenAI-compatible /v1/audio/transcriptions endpoint (OpenAI, a local
// whisper server, any compatible one). Empty BaseURL: voice notes are kept
// and the owner is told what to set.
type Transcription struct {
	BaseURL string `yaml:"base_url"` // e.g. https://api.openai.com/v1, http://localhost:8000/v1
	Model   string `yaml:"model"`    // e.g. whisper-1; "" = DefaultTranscriptionModel
	// APIKeySecret is the keyring name (or environment variable) of the
	// key; "" = SecretTranscriptionKey. A local server may need none.
	APIKeySecret string `yaml:"api_key_secret"`
}

// DefaultTranscriptionModel is transcription.model when unset.
const DefaultTranscriptionModel = "whisper-1"

// Voice is how an answer is spoken back when the owner spoke (V1),
// through an OpenAI-compatible /v1/audio/speech endpoint.
type Voice struct {
	Reply string `yaml:"reply"` // auto (the default: when the owner spoke) | never
	// BaseURL is the speech endpoint; "" = transcription.base_url.
	BaseURL string `yaml:"base_url"`
	Model   string `yaml:"model"` // "" = DefaultSpeechModel
	Voice   string `yaml:"voice"` // "" = DefaultSpeechVoice
	// APIKeySecret names the key; "" = the transcription's.
	APIKeySecret string `yaml:"api_key_secret"`
}

// Defaults of the spoken answer.
const (
	DefaultSpeechModel = "tts-1"
	DefaultSpeechVoice = "alloy"
)

// SpeaksBack reports whether an answer to a voice note is spoken back.
func (v Voice) SpeaksBack() bool { return v.Reply != "never" }

// Web configures the dashboard (W1).
type Web struct {
	// Listen is the dashboard's address: DefaultWebListen when empty,
	// "off" for none. Beyond loopback it needs TLSCert and TLSKey (or
	// stay on loopback behind a reverse proxy that terminates TLS).
	Listen  string `yaml:"listen"`
	TLSCert string `yaml:"tls_cert"`
	TLSKey  string `yaml:"tls_key"`
	// URL is the address the owner opens, when it is not the listen
	// address (behind a reverse proxy): sign-in links start with it.
	URL string `yaml:"url"`
	// Metrics serves Prometheus metrics at /metrics on this listener,
	// without sign-in; off by default, since the listener may be public.
	Metrics bool `yaml:"metrics"`
	// BehindProxy says a reverse proxy on a private network terminates
	// TLS in front of the listener: a listen address beyond loopback is
	// then accepted without tls_cert, and /metrics refuses requests the
	// proxy forwarded (X-Forwarded-For), so that it is scraped directly
	// and never published through the proxy.
	BehindProxy bool `yaml:"behind_proxy"`
}

// Browser configures builtin:browser (P6).
type Browser struct {
	// Engine is "go" (the default: nothing to install) or "chromium"
	// (pages that need JavaScript, rendered by Chromium).
	Engine string `yaml:"engine"`
	// Allow lets the owner's own hosts (names, or CIDRs such as
	// 192.168.1.0/24) through the rule that refuses private addresses.
	Allow []string `yaml:"allow"`
	// ChromiumPath is the browser binary, default chromium on PATH.
	ChromiumPath string `yaml:"chromium_path"`
}

// Approvals configures ask-tier approvals (C2).
type Approvals struct {
	TTL       time.Duration `yaml:"ttl"`       // how long a request waits, default 10m
	Approvers []string      `yaml:"approvers"` // user ids such as telegram:123; the console owner always counts
	// Channel is where approval buttons go: "" for the chat the request
	// came from, or a chat such as "discord:123456789".
	Channel string `yaml:"channel"`
}

// Keyring says where secrets live.
type Keyring struct {
	Backend string `yaml:"backend"` // "" auto, file, secret-service, keyctl, pass, kwallet
	Dir     string `yaml:"dir"`     // file backend dir, default <data_dir>/keyring
}

// Agent seeds an agent at start-up; an agent that already exists in the
// store is left as the owner last changed it.
type Agent struct {
	Description string   `yaml:"description"`
	Allow       []string `yaml:"allow"`
	Block       []string `yaml:"block"`
	// Chats are the chats this agent answers: a chat ("telegram:-100123",
	// "discord:987…") or a whole platform ("telegram", "discord"). The
	// most specific binding wins, then the default agent.
	Chats []string `yaml:"chats"`
	// Provider overrides the top-level provider for this agent; unset
	// fields are taken from it.
	Provider Provider `yaml:"provider"`
}

// MCPServer is the owner's routing data for one MCP server.
type MCPServer struct {
	Title   string   `yaml:"title"`
	Aliases []string `yaml:"aliases"`
	Card    []string `yaml:"card"`
}

// Log levels, in increasing severity.
var logLevels = []string{"debug", "info", "warn", "error"}

// Keyring backends the secrets package knows; "" picks one automatically.
var keyringBackends = []string{"file", "secret-service", "keyctl", "pass", "kwallet"}

var tierValues = []string{"safe", "monitor", "ask"}

// capabilityKinds are the prefixes of capability ids (catalog.Kind*); kept
// here as strings so config does not depend on the catalog.
var capabilityKinds = []string{"plugin", "mcp", "skill", "cli", "builtin"}

// DefaultPath returns the config file path: $JARVIS_CONFIG, else
// $XDG_CONFIG_HOME/jarvisbot/config.yaml, else
// $HOME/.config/jarvisbot/config.yaml. It returns "" when none is set.
func DefaultPath(getenv func(string) string) string {
	if p := getenv(EnvConfig); p != "" {
		return p
	}
	// The XDG spec says relative values are invalid and to be ignored.
	if x := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "jarvisbot", "config.yaml")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "jarvisbot", "config.yaml")
	}
	return ""
}

// DefaultDataDir returns $XDG_DATA_HOME/jarvisbot, else
// $HOME/.local/share/jarvisbot, or "" when neither is set.
func DefaultDataDir(getenv func(string) string) string {
	if x := getenv("XDG_DATA_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "jarvisbot")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "share", "jarvisbot")
	}
	return ""
}

// Load reads the config file at DefaultPath, applies the environment
// overrides and checks the result. A missing file at the default location
// means defaults; a missing file that JARVIS_CONFIG names is an error.
func Load(getenv func(string) string) (Config, error) {
	path := DefaultPath(getenv)
	explicit := getenv(EnvConfig) != ""
	var cfg Config
	if path != "" {
		data, err := readFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist) && !explicit:
			// No file yet: defaults, and the owner can run `jarvisbot init`.
		case errors.Is(err, fs.ErrNotExist):
			return Config{}, jarvisbot.Errorf(jarvisbot.ENOTFOUND,
				"config file %s (from %s) does not exist: run `jarvisbot init` to write one, or fix %s", path, EnvConfig, EnvConfig)
		case err != nil:
			return Config{}, err
		default:
			if cfg, err = parse(path, data); err != nil {
				return Config{}, err
			}
			if abs, err := filepath.Abs(path); err == nil {
				cfg.Path = abs
			} else {
				cfg.Path = path
			}
		}
	}
	if err := cfg.applyEnv(getenv); err != nil {
		return Config{}, err
	}
	if err := cfg.resolve(getenv); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// readFile reads a config file, refusing what cannot be one.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "cannot read config file %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "cannot read config file %s: %w", path, err)
	}
	if fi.IsDir() {
		return nil, jarvisbot.Errorf(jarvisbot.EINVALID, "config path %s is a directory, not a file: point %s at the file, or remove the directory and run `jarvisbot init`", path, EnvConfig)
	}
	limit := sizelimit.Limit{What: "the config file", Max: maxFileSize, Hint: "is " + EnvConfig + " pointing at the right file?"}
	return limit.ReadOpened(f, "config file "+path)
}

// parse decodes and validates the YAML of a config file; path only labels
// errors. It never panics: a panic in the YAML library becomes an error.
func parse(path string, data []byte) (cfg Config, err error) {
	defer func() {
		if r := recover(); r != nil {
			cfg, err = Config{}, jarvisbot.Errorf(jarvisbot.EINVALID, "config file %s could not be parsed as YAML (%v)", path, r)
		}
	}()
	if bytes.IndexByte(data, 0) >= 0 {
		return Config{}, jarvisbot.Errorf(jarvisbot.EINVALID, "config file %s contains NUL bytes: it is not a YAML text file", path)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		if errors.Is(err, io.EOF) {
			return Config{}, nil // empty file, or comments only: all defaults
		}
		return Config{}, yamlError(path, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return Config{}, jarvisbot.Errorf(jarvisbot.EINVALID, "config file %s holds more than one YAML document (a second '---'): keep one", path)
	}
	if err := cfg.validate(path, data); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

var (
	unknownField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^line (\d+): field (.+) not found in type (\S+)$`) })
	lineMsg      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^line (\d+): (.*)$`) })
	yamlPrefix   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: (line (\d+): )?`) })
)

// yamlError rewrites the YAML library's errors as "PATH:LINE: what", with
// unknown keys named together with the keys allowed at that place.
func yamlError(path string, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		msg := err.Error()
		if m := yamlPrefix().FindStringSubmatch(msg); m != nil {
			msg = msg[len(m[0]):]
			if m[2] != "" {
				return jarvisbot.Errorf(jarvisbot.EINVALID, "%s:%s: malformed YAML: %s", path, m[2], msg)
			}
		}
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: malformed YAML: %s", path, msg)
	}
	var lines []string
	for _, e := range te.Errors {
		if m := unknownField().FindStringSubmatch(e); m != nil {
			where, known := section(m[3])
			lines = append(lines, fmt.Sprintf("%s:%s: unknown key %q %s (known keys: %s)", path, m[1], m[2], where, known))
		} else if m := lineMsg().FindStringSubmatch(e); m != nil {
			lines = append(lines, fmt.Sprintf("%s:%s: %s", path, m[1], m[2]))
		} else {
			lines = append(lines, fmt.Sprintf("%s: %s", path, e))
		}
	}
	return jarvisbot.Errorf(jarvisbot.EINVALID, "%s", strings.Join(lines, "; "))
}

// section names the place in the file a Go type decodes, and its keys.
func section(typeName string) (where, known string) {
	var t reflect.Type
	switch typeName {
	case "config.Config":
		where, t = "at the top level", reflect.TypeFor[Config]()
	case "config.Keyring":
		where, t = "under keyring", reflect.TypeFor[Keyring]()
	case "config.Agent":
		where, t = "in an agents entry", reflect.TypeFor[Agent]()
	case "config.Provider":
		where, t = "in a provider entry", reflect.TypeFor[Provider]()
	case "config.MCPServer":
		where, t = "in an mcp entry", reflect.TypeFor[MCPServer]()
	case "config.Budgets":
		where, t = "under budgets", reflect.TypeFor[Budgets]()
	case "config.Budget":
		where, t = "in a budgets.agents entry", reflect.TypeFor[Budget]()
	default:
		return "in " + typeName, "see `jarvisbot init`"
	}
	return where, strings.Join(yamlKeys(t), ", ")
}

// yamlKeys lists the YAML keys of a struct type, in field order.
func yamlKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

// validate checks the values the file set. data is the file, parsed
// again as a tree only when an error needs a line number: a valid file,
// at every start, is not parsed twice.
func (c *Config) validate(path string, data []byte) error {
	root := sync.OnceValue(func() *yaml.Node {
		var n yaml.Node
		_ = yaml.Unmarshal(data, &n)
		return &n
	})
	at := func(keys ...string) string {
		if l := lineOf(root(), keys...); l > 0 {
			return path + ":" + strconv.Itoa(l)
		}
		return path
	}
	if c.Store != "" {
		if err := checkStoreURL(c.Store); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: store: %w", at("store"), err)
		}
		if hasPassword(c.Store) {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: store: the URL holds a password, and a secret never goes in the config file; remove it and give it through PGPASSWORD or ~/.pgpass, or set the whole URL in %s", at("store"), EnvDatabaseURL)
		}
	}
	if c.LogLevel != "" {
		lv, err := parseLogLevel(c.LogLevel)
		if err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: log_level: %w", at("log_level"), err)
		}
		c.LogLevel = lv
	}
	if c.Keyring.Backend != "" {
		b, err := parseBackend(c.Keyring.Backend)
		if err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: keyring.backend: %w", at("keyring", "backend"), err)
		}
		c.Keyring.Backend = b
	}
	bound := map[string]string{} // chat or platform -> agent
	for _, name := range slices.Sorted(maps.Keys(c.Agents)) {
		if err := names.ValidAgent(name); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: agents: %w", at("agents", name), err)
		}
		for _, chat := range c.Agents[name].Chats {
			if err := validBinding(chat); err != nil {
				return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: agents.%s.chats: %w", at("agents", name, "chats"), name, err)
			}
			if other, ok := bound[chat]; ok && other != name {
				return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: agents.%s.chats: %s is bound to agent %s too; a chat is answered by one agent", at("agents", name, "chats"), name, chat, other)
			}
			bound[chat] = name
		}
	}
	if c.Discord.Shards < 0 || c.Discord.Shards > maxShards {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: discord.shards: %d: give a number of shards from 1 to %d", at("discord", "shards"), c.Discord.Shards, maxShards)
	}
	for _, name := range slices.Sorted(maps.Keys(c.MCP)) {
		if strings.TrimSpace(name) == "" {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: mcp: an entry has an empty server name", at("mcp"))
		}
	}
	for _, p := range append([]struct {
		where []string
		p     *Provider
	}{{[]string{"provider"}, &c.Provider}}, agentProviders(c)...) {
		if err := p.p.check(); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: %s: %w", at(p.where...), strings.Join(p.where, "."), err)
		}
		if err := p.p.checkChain(); err != nil {
			var le *linkError
			if errors.As(err, &le) {
				where := append(slices.Clone(p.where), strconv.Itoa(le.i))
				return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: %s[%d]: %w", at(where...), strings.Join(p.where, "."), le.i, le.err)
			}
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: %s: %w", at(p.where...), strings.Join(p.where, "."), err)
		}
	}
	for _, model := range slices.Sorted(maps.Keys(c.Prices)) {
		p := c.Prices[model]
		if strings.TrimSpace(model) == "" {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: prices: an entry has an empty model name", at("prices"))
		}
		if p.Input < 0 || p.Output < 0 || p.CacheRead < 0 || p.CacheWrite < 0 {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: prices.%s: a price is negative; give US dollars per million tokens", at("prices", model), model)
		}
	}
	if err := c.Budgets.check(at); err != nil {
		return err
	}
	if c.Approvals.TTL < 0 {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: approvals.ttl is negative", at("approvals", "ttl"))
	}
	if c.ShutdownTimeout < 0 {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: shutdown_timeout is negative", at("shutdown_timeout"))
	}
	if c.MCPIdleTimeout != nil && *c.MCPIdleTimeout < 0 {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: mcp_idle_timeout is negative: give a duration such as 10m, or 0 to keep every MCP server running", at("mcp_idle_timeout"))
	}
	for _, cl := range []struct {
		name   string
		secret string
		c      OAuthClient
	}{{"google", SecretGoogleClientSecret, c.SignIn.Google}, {"spotify", "", c.SignIn.Spotify}} {
		if cl.c.ClientSecret != "" {
			keep := "remove it: Spotify's client needs no secret"
			if cl.secret != "" {
				keep = "keep it in the keyring instead: jarvisbot secrets set " + cl.secret
			}
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: signin.%s.client_secret: a secret never goes in the config file; %s", at("signin", cl.name, "client_secret"), cl.name, keep)
		}
	}
	if c.Timezone != "" {
		if _, err := time.LoadLocation(c.Timezone); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: timezone %q is not an IANA time zone such as Europe/Berlin or America/New_York", at("timezone"), c.Timezone)
		}
	}
	if err := checkEngine(c.Browser.Engine); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: browser.engine: %w", at("browser", "engine"), err)
	}
	if err := c.MCPServer.check(); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: mcp_server: %w", at("mcp_server"), err)
	}
	if err := c.Web.check(); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: web: %w", at("web"), err)
	}
	if err := c.Telegram.check(); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: telegram: %w", at("telegram"), err)
	}
	if err := checkVoice(c.Transcription, c.Voice); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: %w", at("voice"), err)
	}
	for _, id := range slices.Sorted(maps.Keys(c.Tiers)) {
		if err := checkCapabilityID(id); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: tiers: %w", at("tiers", id), err)
		}
		tier := strings.ToLower(strings.TrimSpace(c.Tiers[id]))
		if !slices.Contains(tierValues, tier) {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: tiers: %q has tier %q: use safe, monitor or ask", at("tiers", id), id, c.Tiers[id])
		}
		c.Tiers[id] = tier
	}
	return nil
}

func agentProviders(c *Config) []struct {
	where []string
	p     *Provider
} {
	var out []struct {
		where []string
		p     *Provider
	}
	for _, name := range slices.Sorted(maps.Keys(c.Agents)) {
		ag := c.Agents[name]
		out = append(out, struct {
			where []string
			p     *Provider
		}{[]string{"agents", name, "provider"}, &ag.Provider})
		c.Agents[name] = ag
	}
	return out
}

// validBinding checks one entry of an agent's chats: a platform, or a
// platform and a chat id.
func validBinding(chat string) error {
	platform, id, hasID := strings.Cut(chat, ":")
	if platform != "telegram" && platform != "discord" && platform != "console" {
		return fmt.Errorf("%q: write telegram:CHAT_ID, discord:CHANNEL_ID, or telegram or discord alone for every chat there", chat)
	}
	if hasID && (id == "" || strings.ContainsAny(id, " \t")) {
		return fmt.Errorf("%q: the chat id after %s: is missing or has spaces", chat, platform)
	}
	return nil
}

// AgentFor is the agent the config binds chat to: the agent bound to the
// chat itself, else the one bound to its whole platform, else "".
func (c Config) AgentFor(chat string) string {
	platform, _, _ := strings.Cut(chat, ":")
	var byPlatform string
	for name, ag := range c.Agents {
		for _, b := range ag.Chats {
			switch b {
			case chat:
				return name
			case platform:
				byPlatform = name
			}
		}
	}
	return byPlatform
}

// Providers jarvisbot speaks: two APIs, and two coding CLIs that are the
// model and run their own tool loop (M5).
var (
	providerNames = []string{"anthropic", "openai", "claude-code", "codex"}
	cliProviders  = []string{"claude-code", "codex"}
)

func (p *Provider) check() error {
	p.Name = strings.ToLower(strings.TrimSpace(p.Name))
	if p.Name != "" && !slices.Contains(providerNames, p.Name) {
		return fmt.Errorf("name %q: use anthropic, or openai for any OpenAI-compatible endpoint (Ollama, vLLM, OpenRouter, llama.cpp) with base_url, or claude-code or codex for a coding CLI you are signed in to", p.Name)
	}
	if p.Command != "" && p.Name != "" && !slices.Contains(cliProviders, p.Name) {
		return fmt.Errorf("command %q: a command is the path of a coding CLI, for name claude-code or codex; %s is reached over its API", p.Command, p.Name)
	}
	if p.MaxTokens < 0 || p.MaxSteps < 0 || p.Timeout < 0 {
		return fmt.Errorf("max_tokens, max_steps and timeout cannot be negative")
	}
	if p.BaseURL != "" && !strings.HasPrefix(p.BaseURL, "http://") && !strings.HasPrefix(p.BaseURL, "https://") {
		return fmt.Errorf("base_url %q is not an http(s) address", p.BaseURL)
	}
	return nil
}

// linkError is what is wrong with the i-th entry (from 0) of a provider
// list.
type linkError struct {
	i   int
	err error
}

func (e *linkError) Error() string { return e.err.Error() }

// checkChain checks the fallbacks of a provider list: each is a whole
// entry of its own (a name, an API provider), and none is a coding CLI,
// which runs the turn itself and cannot hand it on halfway.
func (p *Provider) checkChain() error {
	if len(p.Fallbacks) == 0 {
		return nil
	}
	if slices.Contains(cliProviders, p.Name) {
		return fmt.Errorf("%s is a coding CLI, which runs the whole turn itself and cannot be part of a provider list: give it as a single provider (no list), or chain anthropic and openai entries", p.Name)
	}
	for i := range p.Fallbacks {
		f := &p.Fallbacks[i]
		if err := f.check(); err != nil {
			return &linkError{i + 1, err}
		}
		switch {
		case f.Name == "":
			return &linkError{i + 1, fmt.Errorf("a fallback names its provider: set name to anthropic, or openai for any OpenAI-compatible endpoint")}
		case slices.Contains(cliProviders, f.Name):
			return &linkError{i + 1, fmt.Errorf("%s is a coding CLI, which runs the whole turn itself and cannot be a fallback: chain anthropic and openai entries only", f.Name)}
		case f.MaxSteps > 0 || f.OwnTools:
			return &linkError{i + 1, fmt.Errorf("max_steps and own_tools belong to the turn, not to one provider: set them on the first entry")}
		}
	}
	return nil
}

// checkCapabilityID accepts "KIND:NAME" (NAME may be a pattern such as
// "mcp:github/*"); the catalog does the full check when it applies tiers.
func checkCapabilityID(id string) error {
	kind, name, ok := strings.Cut(id, ":")
	if !ok || !slices.Contains(capabilityKinds, kind) || name == "" || strings.ContainsAny(id, " \t\r\n") {
		return fmt.Errorf("%q is not a capability id: write KIND:NAME with KIND one of %s (for example builtin:wiki)", id, strings.Join(capabilityKinds, ", "))
	}
	return nil
}

// lineOf finds the line of the key at the given path in a YAML tree, 0 if
// it is not there.
func lineOf(n *yaml.Node, keys ...string) int {
	if n == nil {
		return 0
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	line := 0
	for _, k := range keys {
		if i, err := strconv.Atoi(k); err == nil && n.Kind == yaml.SequenceNode {
			if i < 0 || i >= len(n.Content) {
				return line
			}
			n = n.Content[i]
			line = n.Line
			continue
		}
		if n.Kind == yaml.SequenceNode && len(n.Content) > 0 {
			n = n.Content[0] // a provider list: its keys are the primary's
		}
		if n.Kind != yaml.MappingNode {
			return line
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				line, next = n.Content[i].Line, n.Content[i+1]
				break
			}
		}
		if next == nil {
			return line
		}
		n = next
	}
	return line
}

// applyEnv lets the environment win over the file.
func (c *Config) applyEnv(getenv func(string) string) error {
	if v := getenv(EnvDataDir); v != "" {
		abs, err := expandPath(v, "", getenv)
		if err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s=%q: %w", EnvDataDir, v, err)
		}
		c.DataDir = abs
	}
	if v := getenv(EnvDatabaseURL); v != "" {
		// The value is never quoted: it may hold the password.
		if err := checkStoreURL(v); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: %w", EnvDatabaseURL, err)
		}
		c.Store = v
	}
	if v := getenv(EnvLogLevel); v != "" {
		lv, err := parseLogLevel(v)
		if err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: %w", EnvLogLevel, err)
		}
		c.LogLevel = lv
	}
	split := func(v string) []string {
		var out []string
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out
	}
	if v := getenv("JARVIS_TELEGRAM_OWNERS"); v != "" {
		c.Telegram.Owners = split(v)
	}
	if v := getenv("JARVIS_DISCORD_OWNERS"); v != "" {
		c.Discord.Owners = split(v)
	}
	if v := getenv("JARVIS_TELEGRAM_API_ENDPOINT"); v != "" {
		c.Telegram.APIEndpoint = v
	}
	if v := getenv("JARVIS_TELEGRAM_WEBHOOK_URL"); v != "" {
		c.Telegram.WebhookURL = v
	}
	if v := getenv("JARVIS_DISCORD_API_BASE"); v != "" {
		c.Discord.APIBase = v
	}
	if v := getenv(EnvWebhookListen); v != "" {
		c.Telegram.WebhookListen = v
	}
	if v := getenv(EnvWebhookBehindProxy); v != "" {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s=%q: give 1 (on) or 0 (off)", EnvWebhookBehindProxy, v)
		}
		c.Telegram.WebhookBehindProxy = on
	}
	if err := c.Telegram.check(); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "JARVIS_TELEGRAM_WEBHOOK_URL / %s: telegram: %w", EnvWebhookListen, err)
	}
	if v := getenv("JARVIS_DISCORD_SHARDS"); v != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > maxShards {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "JARVIS_DISCORD_SHARDS=%q: give a number of shards from 1 to %d", v, maxShards)
		}
		c.Discord.Shards = n
	}
	if v := getenv("JARVIS_PUBLIC_URL"); v != "" {
		c.SignIn.PublicBaseURL = v
	}
	if v := getenv(EnvShutdownTimeout); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s=%q: give a duration such as 30s or 2m", EnvShutdownTimeout, v)
		}
		c.ShutdownTimeout = d
	}
	if v := getenv(EnvMCPIdleTimeout); v != "" {
		d, err := time.ParseDuration(v)
		if v == "off" {
			d, err = 0, nil
		}
		if err != nil || d < 0 {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s=%q: give a duration such as 10m, or 0 (or off) to keep every MCP server running (unset, it is %s)", EnvMCPIdleTimeout, v, DefaultMCPIdleTimeout)
		}
		c.MCPIdleTimeout = &d
	}
	if v := getenv(EnvMCPInitTimeout); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s=%q: give a duration above zero such as 60s or 2m (unset, it is %s)", EnvMCPInitTimeout, v, DefaultMCPInitTimeout)
		}
		c.MCPInitTimeout = d
	}
	if v := getenv(EnvTimezone); v != "" {
		if _, err := time.LoadLocation(v); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s=%q is not an IANA time zone such as Europe/Berlin", EnvTimezone, v)
		}
		c.Timezone = v
	}
	if v := getenv(EnvBrowserEngine); v != "" {
		if err := checkEngine(v); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: %w", EnvBrowserEngine, err)
		}
		c.Browser.Engine = v
	}
	if v := getenv(EnvMCPListen); v != "" {
		c.MCPServer.Listen = v
		if err := c.MCPServer.check(); err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s=%q: %w", EnvMCPListen, v, err)
		}
	}
	for _, e := range []struct {
		name string
		to   *string
	}{{EnvTranscriptionBaseURL, &c.Transcription.BaseURL}, {EnvTranscriptionModel, &c.Transcription.Model},
		{EnvVoiceReply, &c.Voice.Reply}, {EnvVoiceBaseURL, &c.Voice.BaseURL}, {EnvVoiceModel, &c.Voice.Model}, {EnvVoiceName, &c.Voice.Voice}} {
		if v := getenv(e.name); v != "" {
			*e.to = v
		}
	}
	if err := checkVoice(c.Transcription, c.Voice); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "JARVIS_TRANSCRIPTION_* / JARVIS_VOICE_*: %w", err)
	}
	if v := getenv(EnvWebListen); v != "" {
		c.Web.Listen = v
	}
	if v := getenv(EnvWebURL); v != "" {
		c.Web.URL = v
	}
	for _, b := range []struct {
		name string
		to   *bool
	}{{EnvWebMetrics, &c.Web.Metrics}, {EnvWebBehindProxy, &c.Web.BehindProxy}} {
		if v := getenv(b.name); v != "" {
			on, err := strconv.ParseBool(v)
			if err != nil {
				return jarvisbot.Errorf(jarvisbot.EINVALID, "%s=%q: give 1 (on) or 0 (off)", b.name, v)
			}
			*b.to = on
		}
	}
	if err := c.Web.check(); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "%s / %s: %w", EnvWebListen, EnvWebURL, err)
	}
	if v := getenv(EnvBrowserAllow); v != "" {
		c.Browser.Allow = split(v)
	}
	for _, p := range []struct {
		prefix string
		c      *OAuthClient
	}{{"JARVIS_GOOGLE_", &c.SignIn.Google}, {"JARVIS_SPOTIFY_", &c.SignIn.Spotify}} {
		if v := getenv(p.prefix + "AUTH_URL"); v != "" {
			p.c.AuthURL = v
		}
		if v := getenv(p.prefix + "TOKEN_URL"); v != "" {
			p.c.TokenURL = v
		}
		if v := getenv(p.prefix + "API_ENDPOINT"); v != "" {
			p.c.APIEndpoint = v
		}
	}
	if v := getenv(EnvKeyringBackend); v != "" {
		b, err := parseBackend(v)
		if err != nil {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "%s: %w", EnvKeyringBackend, err)
		}
		c.Keyring.Backend = b
	}
	return nil
}

// resolve fills defaults and makes the paths absolute. Relative paths in the
// file are taken from the file's directory, so the file means the same thing
// whatever directory jarvisbot starts in.
func (c *Config) resolve(getenv func(string) string) error {
	base := ""
	if c.Path != "" {
		base = filepath.Dir(c.Path)
	}
	if c.LogLevel == "" {
		c.LogLevel = "info"
	}
	if c.DataDir == "" {
		c.DataDir = DefaultDataDir(getenv)
		if c.DataDir == "" {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "cannot choose a data directory: set HOME, XDG_DATA_HOME or %s, or data_dir in the config file", EnvDataDir)
		}
	}
	var err error
	if c.DataDir, err = expandPath(c.DataDir, base, getenv); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "data_dir %q: %w", c.DataDir, err)
	}
	if c.Keyring.Dir == "" {
		c.Keyring.Dir = filepath.Join(c.DataDir, "keyring")
	} else if c.Keyring.Dir, err = expandPath(c.Keyring.Dir, base, getenv); err != nil {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "keyring.dir %q: %w", c.Keyring.Dir, err)
	}
	return nil
}

// expandPath expands a leading "~/" to $HOME and makes p absolute, relative
// to base when it is set, else to the working directory.
func expandPath(p, base string, getenv func(string) string) (string, error) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		home := getenv("HOME")
		if home == "" {
			return "", errors.New("it starts with ~ but HOME is not set")
		}
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) && base != "" {
		p = filepath.Join(base, p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return abs, nil
}

func parseLogLevel(s string) (string, error) {
	lv := strings.ToLower(strings.TrimSpace(s))
	if !slices.Contains(logLevels, lv) {
		return "", fmt.Errorf("unknown log level %q: use %s", s, strings.Join(logLevels, ", "))
	}
	return lv, nil
}

func parseBackend(s string) (string, error) {
	b := strings.ToLower(strings.TrimSpace(s))
	if b == "auto" {
		return "", nil
	}
	if !slices.Contains(keyringBackends, b) {
		return "", fmt.Errorf("unknown keyring backend %q: use %s, or leave it empty to choose automatically", s, strings.Join(keyringBackends, ", "))
	}
	return b, nil
}

// Addr is the endpoint's listen address, "" when it is off.
func (m MCPListen) Addr() string { return listenAddr(m.Listen, DefaultMCPListen) }

// check refuses an address beyond loopback without TLS: every request
// carries an app's key, which must not cross a network in clear.
func (m MCPListen) check() error {
	return checkListen("", m.Listen, DefaultMCPListen, m.TLSCert, m.TLSKey, false)
}

// Addr is the dashboard's listen address, "" when it is off.
func (w Web) Addr() string { return listenAddr(w.Listen, DefaultWebListen) }

// check refuses an address beyond loopback without TLS, as for the MCP
// endpoint: the session cookie must not cross a network in clear. A URL,
// when given, must be an http(s) address to open.
func (w Web) check() error {
	// Behind a proxy that terminates TLS (a container's network, a
	// private LAN) clear text to the proxy is the design.
	if err := checkListen("", w.Listen, DefaultWebListen, w.TLSCert, w.TLSKey, w.BehindProxy); errors.Is(err, errClearBeyondLoopback) {
		return fmt.Errorf("%w (or set behind_proxy when a reverse proxy on a private network, such as a container's, terminates TLS)", err)
	} else if err != nil {
		return err
	}
	if w.URL != "" {
		u, err := url.Parse(w.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("url %q is not an address to open such as https://jarvis.example.org", w.URL)
		}
	}
	return nil
}

// checkStoreURL checks a PostgreSQL URL without ever quoting it: it may
// hold a password.
func checkStoreURL(raw string) error {
	scheme, _, ok := strings.Cut(raw, "://")
	if !ok {
		return errors.New("not a URL: give a PostgreSQL URL such as postgres://jarvis@db.internal:5432/jarvis, or leave it empty for the SQLite file in the data directory")
	}
	if scheme != "postgres" && scheme != "postgresql" {
		return fmt.Errorf("the scheme %q is not PostgreSQL's: use postgres:// (or postgresql://), or leave it empty for the SQLite file in the data directory", scheme)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("the URL cannot be read (is a character in the password left unescaped? write it %-encoded)")
	}
	if u.Host == "" && u.Query().Get("host") == "" {
		return errors.New("the URL names no host: give one, as in postgres://jarvis@db.internal:5432/jarvis")
	}
	return nil
}

// hasPassword reports whether a store URL carries a password.
func hasPassword(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	_, has := u.User.Password()
	return has || u.Query().Has("password")
}

// checkVoice checks the endpoints' addresses and voice.reply.
func checkVoice(t Transcription, v Voice) error {
	for _, e := range []struct{ key, val string }{{"transcription.base_url", t.BaseURL}, {"voice.base_url", v.BaseURL}} {
		if e.val == "" {
			continue
		}
		u, err := url.Parse(e.val)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%s %q is not an http(s) address such as https://api.openai.com/v1 or http://localhost:8000/v1", e.key, e.val)
		}
	}
	switch v.Reply {
	case "", "auto", "never":
		return nil
	}
	return fmt.Errorf("voice.reply %q: use auto (speak back when you spoke) or never", v.Reply)
}

// listenAddr is a listen setting's address: def when empty, "" for off.
func listenAddr(listen, def string) string {
	switch listen {
	case "off":
		return ""
	case "":
		return def
	}
	return listen
}

// errClearBeyondLoopback is an address beyond loopback without TLS.
var errClearBeyondLoopback = errors.New("reaches beyond this machine")

// checkListen refuses an address that is no host:port, and one beyond
// loopback without TLS unless proxied (a reverse proxy terminates TLS in
// front of it).
//
// prefix is what the keys start with in their section ("webhook_" for
// telegram.webhook_listen), so that the message names the keys to set.
func checkListen(prefix, listen, def, cert, key string, proxied bool) error {
	addr := listenAddr(listen, def)
	if addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%slisten %q is not host:port such as %s (or off)", prefix, listen, def)
	}
	if (cert == "") != (key == "") {
		return fmt.Errorf("give both %stls_cert and %stls_key, or neither", prefix, prefix)
	}
	ip := net.ParseIP(host)
	loopback := host == "localhost" || (ip != nil && ip.IsLoopback())
	if !loopback && cert == "" && !proxied {
		return fmt.Errorf("%slisten %q %w: set %stls_cert and %stls_key, or keep it on 127.0.0.1 behind a reverse proxy that terminates TLS", prefix, listen, errClearBeyondLoopback, prefix, prefix)
	}
	return nil
}

// checkEngine checks a browser engine's name.
func checkEngine(e string) error {
	switch e {
	case "", "go", "chromium":
		return nil
	}
	return fmt.Errorf("unknown engine %q: use go (the default) or chromium", e)
}

// Location is the owner's time zone: Timezone, else the system's.
func (c Config) Location() *time.Location {
	if c.Timezone != "" {
		if l, err := time.LoadLocation(c.Timezone); err == nil {
			return l
		}
	}
	return time.Local
}

// Secrets are the keyring names the config refers to, each with the key
// that names it.
func (c Config) Secrets() map[string]string {
	out := map[string]string{}
	if n := c.Provider.APIKeySecret; n != "" {
		out[n] = "the config (provider.api_key_secret)"
	}
	for i, f := range c.Provider.Fallbacks {
		if n := f.APIKeySecret; n != "" {
			out[n] = fmt.Sprintf("the config (provider[%d].api_key_secret)", i+1)
		}
	}
	if n := c.SignIn.Google.ClientSecretSecret; n != "" {
		out[n] = "the config (signin.google.client_secret_secret)"
	}
	for name, ag := range c.Agents {
		if n := ag.Provider.APIKeySecret; n != "" {
			out[n] = fmt.Sprintf("the config (agents.%s.provider.api_key_secret)", name)
		}
		for i, f := range ag.Provider.Fallbacks {
			if n := f.APIKeySecret; n != "" {
				out[n] = fmt.Sprintf("the config (agents.%s.provider[%d].api_key_secret)", name, i+1)
			}
		}
	}
	if n := c.Transcription.APIKeySecret; n != "" {
		out[n] = "the config (transcription.api_key_secret)"
	}
	if n := c.Voice.APIKeySecret; n != "" {
		out[n] = "the config (voice.api_key_secret)"
	}
	return out
}
