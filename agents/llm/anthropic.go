package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

type anthropicProvider struct {
	// client is built by the first call: a service that is never asked
	// anything builds no SDK client.
	client func() anthropic.Client
	model  string
	cfg    Config
}

func newAnthropic(cfg Config) *anthropicProvider {
	return &anthropicProvider{client: sync.OnceValue(func() anthropic.Client {
		opts := []option.RequestOption{option.WithAPIKey(cfg.APIKey), option.WithMaxRetries(cfg.MaxRetries)}
		if cfg.BaseURL != "" {
			opts = append(opts, option.WithBaseURL(cfg.BaseURL))
		}
		if cfg.HTTPClient != nil {
			opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
		}
		return anthropic.NewClient(opts...)
	}), model: cfg.Model, cfg: cfg}
}

func (p *anthropicProvider) Name() string { return "anthropic " + p.model }

// Complete sends one Messages call. The system prompt and the last tool of
// the cached prefix carry cache_control, so the stable part of every turn
// is read from Anthropic's prompt cache.
func (p *anthropicProvider) Complete(ctx context.Context, req Request) (Response, error) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(p.model),
		MaxTokens: int64(max(req.MaxTokens, 1)),
	}
	if req.System != "" {
		params.System = []anthropic.TextBlockParam{{Text: req.System, CacheControl: anthropic.NewCacheControlEphemeralParam()}}
	}
	if req.SystemExtra != "" {
		params.System = append(params.System, anthropic.TextBlockParam{Text: req.SystemExtra})
	}
	for i, t := range req.Tools {
		schema, err := schemaMap(t.Schema)
		if err != nil {
			return Response{}, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		in := anthropic.ToolInputSchemaParam{ExtraFields: map[string]any{}}
		for k, v := range schema {
			switch k {
			case "properties":
				in.Properties = v
			case "required":
				if list, ok := v.([]any); ok {
					for _, r := range list {
						if s, ok := r.(string); ok {
							in.Required = append(in.Required, s)
						}
					}
				}
			case "type":
			default:
				in.ExtraFields[k] = v
			}
		}
		tp := anthropic.ToolParam{Name: t.Name, InputSchema: in}
		if t.Description != "" {
			tp.Description = anthropic.String(t.Description)
		}
		if i == req.CachedTools-1 {
			tp.CacheControl = anthropic.NewCacheControlEphemeralParam()
		}
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: &tp})
	}
	for _, m := range req.Messages {
		var blocks []anthropic.ContentBlockParamUnion
		for _, r := range m.ToolResults {
			blocks = append(blocks, anthropic.NewToolResultBlock(r.CallID, r.Content, r.IsError))
		}
		if m.Text != "" {
			blocks = append(blocks, anthropic.NewTextBlock(m.Text))
		}
		for _, c := range m.ToolCalls {
			var input any = json.RawMessage(c.Input)
			var obj map[string]json.RawMessage
			if json.Unmarshal(c.Input, &obj) != nil || obj == nil {
				input = map[string]any{} // the model's broken input was answered with an error
			}
			blocks = append(blocks, anthropic.NewToolUseBlock(c.ID, input, c.Name))
		}
		if len(blocks) == 0 {
			continue
		}
		if m.Role == RoleAssistant {
			params.Messages = append(params.Messages, anthropic.NewAssistantMessage(blocks...))
		} else {
			params.Messages = append(params.Messages, anthropic.NewUserMessage(blocks...))
		}
	}
	c := p.client()
	msg, err := c.Messages.New(ctx, params)
	if err != nil {
		return Response{}, unreachable(p.Name(), err)
	}
	var out Response
	var text []string
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "tool_use":
			out.ToolCalls = append(out.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Input: json.RawMessage(b.Input)})
		}
	}
	out.Text = strings.Join(text, "\n")
	out.StopReason = string(msg.StopReason)
	out.Usage = Usage{InputTokens: int(msg.Usage.InputTokens), OutputTokens: int(msg.Usage.OutputTokens),
		CacheReadTokens: int(msg.Usage.CacheReadInputTokens), CacheWriteTokens: int(msg.Usage.CacheCreationInputTokens)}
	return out, nil
}
