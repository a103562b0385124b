// Package llm talks to the model (A3): one small interface, with adapters
// for Anthropic's Messages API (github.com/anthropics/anthropic-sdk-go) and
// any OpenAI-compatible Chat Completions endpoint (github.com/openai/
// openai-go: OpenAI, Ollama, vLLM, OpenRouter, llama.cpp server). The
// runtime builds a provider-neutral Request; the adapters translate it,
// mark the stable part of it for the provider's prompt cache, and let the
// SDKs retry rate limits and server errors with backoff.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/jarvisbot/jarvisbot"
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
}

// Provider is a model endpoint.
type Provider interface {
	Complete(ctx context.Context, req Request) (Response, error)
	// Name says which provider and model, for logs and messages.
	Name() string
}

// Config selects and reaches a provider.
type Config struct {
	Provider   string // "anthropic" or "openai"
	Model      string
	BaseURL    string
	APIKey     string
	MaxRetries int           // SDK retries on 429 and 5xx; default 2
	Timeout    time.Duration // per call including retries; default 2 minutes
	HTTPClient *http.Client
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
		cfg.APIKey = "none" // local servers ignore it; the SDK wants one
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

// unreachable wraps a failed call in words for the owner: the turn is kept
// and can be retried.
func unreachable(name string, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the model (%s) did not answer in time", name)
	}
	return jarvisbot.Errorf(jarvisbot.EUNAVAILABLE, "the model (%s) cannot be reached: %w", name, err)
}

func schemaMap(raw json.RawMessage) (map[string]any, error) {
	m := map[string]any{}
	if len(raw) == 0 {
		return map[string]any{"type": "object"}, nil
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	return m, nil
}
