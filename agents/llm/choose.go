package llm

import (
	"context"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
)

// Settings is one provider entry as the owner wrote it: the installation's
// or an agent's. Empty fields are "not set".
type Settings struct {
	Name         string // "anthropic", "openai", "claude-code", "codex", or "" to choose by the keys present
	Model        string
	BaseURL      string
	APIKeySecret string // the keyring (or environment) name of the key
	MaxTokens    int
	MaxSteps     int
	Timeout      time.Duration
	Command      string // the coding CLI's path when it is not on PATH
	OwnTools     bool   // the coding CLI may use its own tools, each use approved
	// Images says the model takes images (provider.images); nil: known
	// by its family (SeesImages).
	Images *bool
	// Fallbacks are the providers a chain tries after this one, in order
	// (failover): each a whole entry of its own, API providers only. nil
	// means none were given; an agent's entry that sets it (even empty:
	// a list of one) replaces the installation's chain.
	Fallbacks []Settings
}

// Over returns s with every field that o sets taken from o: an agent's
// entry over the installation's.
func (s Settings) Over(o Settings) Settings {
	if o.Name != "" && !strings.EqualFold(o.Name, s.Name) {
		// The installation's CLI path means nothing to another provider.
		s.Command = ""
	}
	for _, f := range []struct {
		dst *string
		src string
	}{{&s.Name, o.Name}, {&s.Model, o.Model}, {&s.BaseURL, o.BaseURL}, {&s.APIKeySecret, o.APIKeySecret}, {&s.Command, o.Command}} {
		if f.src != "" {
			*f.dst = f.src
		}
	}
	if o.MaxTokens > 0 {
		s.MaxTokens = o.MaxTokens
	}
	if o.MaxSteps > 0 {
		s.MaxSteps = o.MaxSteps
	}
	if o.Timeout > 0 {
		s.Timeout = o.Timeout
	}
	s.OwnTools = s.OwnTools || o.OwnTools
	if o.Images != nil {
		s.Images = o.Images
	}
	switch {
	case o.Fallbacks != nil:
		// The agent's own list is its whole chain.
		s.Fallbacks = o.Fallbacks
	case cliProviders[strings.ToLower(o.Name)]:
		// A coding CLI runs the whole turn and hands nothing on.
		s.Fallbacks = nil
	}
	return s
}

// Env is where a choice looks beyond the settings: Getenv reads the
// process environment (JARVIS_PROVIDER, JARVIS_MODEL, *_BASE_URL); Secret
// reads a key by name, from the keyring first and then the environment.
type Env struct {
	Getenv func(name string) string
	Secret func(ctx context.Context, name string) string
}

// Choice is a resolved provider: how to reach it, and the limits of the
// agent's turns.
type Choice struct {
	Config    Config
	MaxTokens int
	MaxSteps  int
	// CLI is set when the provider is a coding CLI (M5), "claude-code" or
	// "codex": the CLI is the model, run by agents/cliagent, not an API
	// client; Config then holds only the provider's name, model and
	// timeout. Command is its path when not the default on PATH.
	CLI      string
	Command  string
	OwnTools bool
	// Images says the primary model takes images: provider.images, else
	// SeesImages. A coding CLI takes none from a chat.
	Images bool
	// Fallbacks follow Config in a chain (see Chain), in order.
	Fallbacks []Link
}

// Link is one fallback of a chain: how to reach it, and its own cap on
// an answer's tokens when it has one (a small local model's may be lower).
type Link struct {
	Config    Config
	MaxTokens int
}

// cliProviders are the coding CLIs a provider may name; they need no key.
var cliProviders = map[string]bool{"claude-code": true, "codex": true}

// keyNames are the usual names of each provider's key, the ones the
// providers' own tools read from the environment.
var keyNames = map[string]string{"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}

// noProvider is what the owner reads when nothing names a model: every
// way to name one.
const noProvider = "no model provider is configured. Set one of: " +
	"ANTHROPIC_API_KEY (or jarvisbot secrets set ANTHROPIC_API_KEY) and JARVIS_MODEL, e.g. claude-sonnet-4-5; " +
	"OPENAI_API_KEY and JARVIS_MODEL, e.g. gpt-4.1; or OPENAI_BASE_URL for Ollama, vLLM or llama.cpp " +
	"(http://localhost:11434/v1) with JARVIS_MODEL. The provider: section of the config does the same"

// Choose resolves the provider of s (A3): JARVIS_PROVIDER and JARVIS_MODEL
// win over the settings; with no provider named, the first key present
// chooses (Anthropic's, then OpenAI's or an OpenAI-compatible base URL).
// It checks what New would refuse but builds no client, so a service can
// say at start what to set without reaching the provider.
func Choose(ctx context.Context, s Settings, env Env) (Choice, error) {
	if v := env.Getenv("JARVIS_PROVIDER"); v != "" {
		s.Name = strings.ToLower(v)
	}
	if v := env.Getenv("JARVIS_MODEL"); v != "" {
		s.Model = v
	}
	if s.Name == "" {
		switch {
		case env.Secret(ctx, keyNames["anthropic"]) != "":
			s.Name = "anthropic"
		case env.Secret(ctx, keyNames["openai"]) != "" || env.Getenv("OPENAI_BASE_URL") != "":
			s.Name = "openai"
		default:
			return Choice{}, jarvisbot.Errorf(jarvisbot.EINVALID, noProvider)
		}
	}
	if cliProviders[s.Name] {
		// The owner's sign-in is the CLI's own business: no key to check.
		// A CLI named by JARVIS_PROVIDER takes the whole turn: the
		// config's fallbacks, which only API providers can be, are left.
		return Choice{Config: Config{Provider: s.Name, Model: s.Model, Timeout: s.Timeout},
			MaxTokens: s.MaxTokens, MaxSteps: s.MaxSteps, CLI: s.Name, Command: s.Command, OwnTools: s.OwnTools}, nil
	}
	if _, ok := keyNames[s.Name]; !ok {
		return Choice{}, jarvisbot.Errorf(jarvisbot.EINVALID, "JARVIS_PROVIDER=%q: use anthropic or openai (an API key), or claude-code or codex (a coding CLI you are signed in to)", s.Name)
	}
	if s.Command != "" {
		return Choice{}, jarvisbot.Errorf(jarvisbot.EINVALID, "provider command %q: a command is the path of a coding CLI (claude-code or codex); %s is reached over its API", s.Command, s.Name)
	}
	cfg, err := reach(ctx, s, env)
	if err != nil {
		return Choice{}, err
	}
	ch := Choice{Config: cfg, MaxTokens: s.MaxTokens, MaxSteps: s.MaxSteps, Images: SeesImages(s.Name, cfg.Model)}
	if s.Images != nil {
		ch.Images = *s.Images
	}
	for i, f := range s.Fallbacks {
		f.Name = strings.ToLower(f.Name)
		if _, ok := keyNames[f.Name]; !ok {
			return Choice{}, jarvisbot.Errorf(jarvisbot.EINVALID, "provider fallback %d names %q: a fallback is anthropic or openai (an OpenAI-compatible endpoint with base_url)", i+1, f.Name)
		}
		if f.Timeout <= 0 {
			f.Timeout = s.Timeout // the primary's, when the fallback sets none
		}
		fc, err := reach(ctx, f, env)
		if err != nil {
			return Choice{}, jarvisbot.Errorf(jarvisbot.ErrorCode(err), "provider fallback %d (%s): %w", i+1, f.Name, err)
		}
		ch.Fallbacks = append(ch.Fallbacks, Link{Config: fc, MaxTokens: f.MaxTokens})
	}
	return ch, nil
}

// reach resolves how to reach the API provider s names: its base URL
// (base_url, else NAME_BASE_URL) and its key (the secret api_key_secret
// names, else the provider's usual one), checked as New would.
func reach(ctx context.Context, s Settings, env Env) (Config, error) {
	base := s.BaseURL
	if base == "" {
		base = env.Getenv(strings.ToUpper(s.Name) + "_BASE_URL")
	}
	secret := s.APIKeySecret
	if secret == "" {
		secret = keyNames[s.Name]
	}
	cfg := Config{Provider: s.Name, Model: s.Model, BaseURL: base, APIKey: env.Secret(ctx, secret), Timeout: s.Timeout}
	return cfg, cfg.check()
}
