// Package llm talks to the model (A3): one small interface, with adapters
// for Anthropic's Messages API and any OpenAI-compatible Chat Completions
// endpoint (OpenAI, Ollama, vLLM, OpenRouter, llama.cpp server). The
// runtime builds a provider-neutral Request; an adapter translates it into
// its API's JSON, marks the stable part of it for the provider's prompt
// cache, and posts it with net/http through internal/retry's transport,
// which sends a call again after rate limits, server errors and failed
// connections. The adapters are written here rather than taken from the
// providers' SDKs: the few fields jarvisbot sends and reads cost some
// hundred lines, where the SDKs cost a fifth of the binary and megabytes
// of memory in every process that never calls a model. A chain of
// providers (failover.go) puts several of them behind one Provider: the
// primary while it answers, the next when it is busy, down or silent.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jarvisbot/jarvisbot"
	"github.com/jarvisbot/jarvisbot/internal/clock"
)

// Roles of a message.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one turn of the conversation. An assistant message may carry
// tool calls; the user message after it carries their results.
type Message struct {
	Role        string       `json:"role"`
	Text        string       `json:"text,omitempty"`
	ToolCalls   []ToolCall   `json:"tool_calls,omitempty"`
	ToolResults []ToolResult `json:"tool_results,omitempty"`
	// Attachments are files the owner sent with this message (CH4), sent
	// before its text. They are never stored: the stored message keeps a
	// short note of each in Text, so only the turn they came in carries
	// their bytes and later turns stay within the history's bound.
	Attachments []Attachment `json:"-"`
}

// Attachment kinds.
const (
	AttachImage    = "image"    // Data holds the image, MIME its type
	AttachDocument = "document" // Text holds the text read from the file
)

// Attachment is one file sent with a user message: an image the model
// looks at, or the text read from a document.
type Attachment struct {
	Kind string
	Name string // the file's name, "" for a photo
	MIME string // the image's type: image/jpeg, image/png, image/gif or image/webp
	Data []byte
	Text string
}

// ToolCall is the model asking to run a tool.
type ToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"` // the wire name (see WireName)
	Input json.RawMessage `json:"input"`
}

// ToolResult answers one tool call.
type ToolResult struct {
	CallID  string `json:"call_id"`
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

// Tool is one tool offered to the model.
type Tool struct {
	Name        string // wire name
	Description string
	Schema      json.RawMessage
}

// Request is one model call.
type Request struct {
	Model  string
	System string // the stable instructions, cached
	// SystemExtra is this turn's own instructions (the skills that entered
	// it); it follows System and is not cached.
	SystemExtra string
	// Tools are offered in this order; the first CachedTools of them are
	// the turn-invariant prefix, marked for the prompt cache together with
	// the system prompt.
	Tools       []Tool
	CachedTools int
	Messages    []Message
	MaxTokens   int
}

// Usage is what a call cost.
type Usage struct {
	InputTokens, OutputTokens, CacheReadTokens, CacheWriteTokens int
}

// Response is the model's answer.
type Response struct {
	Text       string
	ToolCalls  []ToolCall
	StopReason string
	Usage      Usage
	// Provider and Model say who answered: the provider's kind
	// ("anthropic", "openai") and the model as configured, which the price
	// table knows it by. Behind a chain of providers, the link that did.
	Provider string
	Model    string
}

// Provider is a model endpoint.
type Provider interface {
	Complete(ctx context.Context, req Request) (Response, error)
	// Name says which provider and model, for logs and messages.
	Name() string
}

// Who says which provider and model a Provider calls: its Who method when
// it has one (every adapter here, and a chain, whose answer is its first
// link's until a call says otherwise), else its Name split at the first
// space.
func Who(p Provider) (provider, model string) {
	if w, ok := p.(interface{ Who() (string, string) }); ok {
		return w.Who()
	}
	provider, model, _ = strings.Cut(p.Name(), " ")
	return provider, model
}

// Config selects and reaches a provider.
type Config struct {
	Provider string // "anthropic" or "openai"
	Model    string
	// BaseURL is the API's root: the Messages API is at
	// {BaseURL}/v1/messages, Chat Completions at {BaseURL}/chat/completions
	// (so an OpenAI-compatible root ends in /v1). "" = the provider's own.
	BaseURL    string
	APIKey     string
	MaxRetries int           // more sends after a failed connection, 408, 409, 429 or 5xx; default 2
	Timeout    time.Duration // per call including retries; default 2 minutes
	HTTPClient *http.Client  // its Transport carries the calls; nil = a client of its own

	clock clock.Clock // the retries' waits; nil = the wall clock
	// maxWait bounds a retry's wait (a chain's link: ChainMaxWait); 0 =
	// the retrying transport's own cap.
	maxWait time.Duration
}

// New returns the provider a config names.
func New(cfg Config) (Provider, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = 2
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Minute
	}
	if cfg.Provider == "anthropic" {
		return newAnthropic(cfg), nil
	}
	if cfg.APIKey == "" {
		cfg.APIKey = "none" // local servers ignore it; some proxies want a bearer all the same
	}
	return newOpenAI(cfg), nil
}

// check says what New would refuse, with what to set, without building
// anything.
func (cfg Config) check() error {
	if cfg.Model == "" {
		return jarvisbot.Errorf(jarvisbot.EINVALID, "no model set for %s: set provider.model in the config or JARVIS_MODEL", cfg.Provider)
	}
	switch cfg.Provider {
	case "anthropic":
		if cfg.APIKey == "" {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "no Anthropic API key: store it with jarvisbot secrets set ANTHROPIC_API_KEY, or set ANTHROPIC_API_KEY")
		}
		return nil
	case "openai":
		if cfg.APIKey == "" && cfg.BaseURL == "" {
			return jarvisbot.Errorf(jarvisbot.EINVALID, "no OpenAI API key: store it with jarvisbot secrets set OPENAI_API_KEY, or set OPENAI_API_KEY (a local endpoint such as Ollama needs only OPENAI_BASE_URL)")
		}
		return nil
	}
	return jarvisbot.Errorf(jarvisbot.EINVALID, "unknown provider %q: use anthropic or openai", cfg.Provider)
}

// failed wraps a failed call in words for the owner: what to fix when it
// is the owner's to fix (the key, the model's name), else that the model
// cannot be reached now; either way the turn is kept and can be retried.
func failed(provider, name string, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		// The cause stays wrapped: a chain fails over on it.
		return &jarvisbot.Error{Code: jarvisbot.EUNAVAILABLE, Err: err, Message: fmt.Sprintf("the model (%s) did not answer in time", name)}
	}
	var se *StatusError
	if !errors.As(err, &se) {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the model (%s) cannot be reached: %w", name, err)
	}
	status := fmt.Sprintf("%d %s", se.StatusCode, http.StatusText(se.StatusCode))
	switch code := se.StatusCode; {
	case code == http.StatusUnauthorized:
		// The API's words are left out: OpenAI's repeat part of the key.
		return &jarvisbot.Error{Code: jarvisbot.EINVALID, Err: err, Message: fmt.Sprintf(
			"the model (%s) refused its API key (%s): the key is wrong or revoked; store the right one with jarvisbot secrets set %s (or under the name provider.api_key_secret gives)", name, status, keyNames[provider])}
	case code == http.StatusForbidden:
		return jarvisbot.Errorf(jarvisbot.EFORBIDDEN, "the model (%s) does not let its API key do this (%w): check the key's permissions and the model name (provider.model)", name, se)
	case code == http.StatusNotFound:
		return jarvisbot.Errorf(jarvisbot.EINVALID, "the model (%s) has no such model or route (%w): check the model name (provider.model) and the endpoint (provider.base_url)", name, se)
	case code == http.StatusTooManyRequests:
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the model (%s) is busy or over its quota (%w): try again later", name, se)
	case code >= 400 && code < 500 && code != http.StatusRequestTimeout && code != http.StatusConflict:
		return jarvisbot.Errorf(jarvisbot.EINVALID, "the model (%s) refused the request (%w): check the model name (provider.model) and the provider's settings", name, se)
	}
	return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the model (%s) cannot be reached: %w", name, se)
}
